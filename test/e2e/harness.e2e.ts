import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHANNELS, type ChannelName } from '../../src/shared/ipc/names'
import type { CallsightApi } from '../../src/shared/ipc/contract'
import { Settings, type AppInfo } from '../../src/shared/domain'
import { CallsightError } from '../../src/core/errors'
import type { Handlers } from '../../src/core/app/platform'
import { launchApp, type LaunchedApp } from './support/harness'
import { serveForeignPage } from './support/foreign-page'
import { KEY_HEADER } from './support/bridge'

// Proves the harness end to end: the built renderer in headless Chromium, window.api from
// the init script, calls through the real router over the bridge, events over its socket.

const info: AppInfo = {
  version: '9.8.7-e2e',
  electron: null,
  platform: 'linux',
  locale: 'tr-TR',
  systemZone: 'Europe/Istanbul',
  darkMode: false
}

function minimalHandlers(): Handlers {
  const refuse = (c: ChannelName) => async (): Promise<never> => {
    throw new CallsightError('Internal', `${c} is not part of this test.`)
  }
  const handlers = Object.fromEntries(CHANNELS.map((c) => [c, refuse(c)])) as unknown as Handlers
  handlers['app.info'] = async () => info
  handlers['settings.get'] = async () => Settings.parse({})
  handlers['session.get'] = async () => ({ status: 'signedOut', account: null, tokensPersisted: false, notice: null })
  return handlers
}

/** window.api in the page, typed for page.evaluate callbacks compiled without the DOM lib. */
type PageGlobal = { api: CallsightApi; seen?: unknown[] }

describe('e2e harness', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({ handlers: minimalHandlers() })
  })
  afterAll(async () => {
    await app?.close()
  })

  // Independent of what the renderer shows: it renders, and its start-up calls reach the
  // router from the app's own origin.
  it('renders the app, whose start-up calls went through the bridge', async () => {
    await app.page.waitForFunction(() => {
      const root = (globalThis as unknown as { document: { querySelector(s: string): { childElementCount: number } | null } }).document
      return (root.querySelector('#app')?.childElementCount ?? 0) > 0
    }, undefined, { timeout: 15_000 })
    await expect.poll(() => app.bridge.calls.some((c) => c.channel === 'app.info' && c.origin === app.bridge.url), { timeout: 10_000 }).toBe(true)
    const file = await app.screenshot('harness-smoke')
    expect(existsSync(file)).toBe(true)
  })

  it('gives the page a window.api with the preload shape, answering Results from the router', async () => {
    const replies = await app.page.evaluate(async () => {
      const api = (globalThis as unknown as PageGlobal).api
      const unknownChannel = await api
        .invoke('no.such.channel' as 'app.info', {})
        .then(() => 'resolved')
        .catch((e: Error) => e.message)
      return {
        keys: Object.keys(api).sort(),
        frozen: Object.isFrozen(api),
        info: await api.invoke('app.info', {}),
        invalid: await api.invoke('calls.get', { callId: '' }),
        refused: await api.invoke('cache.info', {}),
        unknownChannel
      }
    })
    expect(replies.keys).toEqual(['invoke', 'on'])
    expect(replies.frozen).toBe(true)
    expect(replies.info).toEqual({ ok: true, value: info })
    expect(replies.invalid).toMatchObject({ ok: false, error: { code: 'InvalidInput', fields: [{ members: ['callId'] }] } })
    expect(replies.refused).toEqual({ ok: false, error: { code: 'Internal', message: 'cache.info is not part of this test.' } })
    expect(replies.unknownChannel).toBe('Unknown channel no.such.channel')
  })

  it('delivers contract events to listeners until they unsubscribe', async () => {
    await app.page.evaluate(() => {
      const g = globalThis as unknown as PageGlobal & { stop?: () => void }
      g.seen = []
      g.stop = g.api.on('theme.changed', (p) => g.seen?.push(p))
    })
    app.bridge.events.emit('theme.changed', { dark: true })
    await app.page.waitForFunction(() => ((globalThis as unknown as PageGlobal).seen ?? []).length === 1, undefined, { timeout: 5_000 })
    await app.page.evaluate(() => (globalThis as unknown as { stop: () => void }).stop())
    app.bridge.events.emit('theme.changed', { dark: false })
    app.bridge.events.emit('menu.command', { command: 'focusSearch' })
    await new Promise((r) => setTimeout(r, 300))
    expect(await app.page.evaluate(() => (globalThis as unknown as PageGlobal).seen)).toEqual([{ dark: true }])
  })

  it('refuses a page on a foreign origin, even one holding the key', async () => {
    const foreign = await serveForeignPage()
    const page = await app.context.newPage()
    try {
      await page.goto(foreign.url)
      const reply = await page.evaluate(() => (globalThis as unknown as PageGlobal).api.invoke('app.info', {}))
      expect(reply).toMatchObject({ ok: false, error: { code: 'Forbidden' } })
      expect(app.bridge.calls.some((c) => c.origin === foreign.url.replace(/\/$/, ''))).toBe(true)
    } finally {
      await page.close()
      await foreign.close()
    }
  })

  it('refuses requests without the run key', async () => {
    const withoutKey = await fetch(`${app.bridge.url}/invoke/app.info`, { method: 'POST', body: '{}' })
    const wrongKey = await fetch(`${app.bridge.url}/invoke/app.info`, { method: 'POST', body: '{}', headers: { [KEY_HEADER]: 'guess' } })
    expect([withoutKey.status, wrongKey.status]).toEqual([401, 401])
  })

  it('ran the page without errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
