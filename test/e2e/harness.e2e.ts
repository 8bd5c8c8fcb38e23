import { existsSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CallsightApi } from '../../src/shared/ipc/contract'
import { launchApp, type LaunchedApp } from './support/harness'

// The browser mode's plumbing end to end: `callsight serve` as a child process, the built
// renderer in headless Chromium at the printed address, window.api from the server's client
// script, calls through the real router over HTTP, events over its WebSocket.

/** window.api in the page, typed for page.evaluate callbacks compiled without the DOM lib. */
type PageGlobal = { api: CallsightApi; seen?: unknown[]; stop?: () => void }

describe('browser mode plumbing', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp()
  })
  afterAll(async () => {
    await app?.close()
  })

  it('renders the app at the address serve printed, on a clean URL without the key', async () => {
    await app.page.getByTestId('signin-demo').waitFor({ timeout: 20_000 })
    expect(app.page.url()).toBe(`${app.url}/#/signin`)
    expect(app.page.url()).not.toContain(app.serve.launchKey)
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
      let unknownEvent = ''
      try {
        api.on('no.such.event' as 'theme.changed', () => undefined)
      } catch (e) {
        unknownEvent = (e as Error).message
      }
      const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'api')
      return {
        keys: Object.keys(api).sort(),
        frozen: Object.isFrozen(api),
        fixed: descriptor?.writable === false && descriptor.configurable === false,
        info: await api.invoke('app.info', {}),
        invalid: await api.invoke('calls.get', { callId: '' }),
        notSignedIn: await api.invoke('cache.clear', {}),
        unknownChannel,
        unknownEvent
      }
    })
    expect(replies.keys).toEqual(['invoke', 'on'])
    expect(replies.frozen).toBe(true)
    expect(replies.fixed).toBe(true)
    expect(replies.info).toMatchObject({ ok: true, value: { electron: null, systemZone: 'Europe/Istanbul', version: expect.any(String) } })
    expect(replies.invalid).toMatchObject({ ok: false, error: { code: 'InvalidInput', fields: [{ members: ['callId'] }] } })
    expect(replies.notSignedIn).toMatchObject({ ok: false, error: { code: 'NotSignedIn' } })
    expect(replies.unknownChannel).toBe('Unknown channel no.such.channel')
    expect(replies.unknownEvent).toBe('Unknown event no.such.event')
  })

  it('delivers contract events to listeners until they unsubscribe', async () => {
    await app.page.evaluate(async () => {
      const g = globalThis as unknown as PageGlobal
      g.seen = []
      g.stop = g.api.on('session.changed', (p) => g.seen?.push(p))
      // Signing out (even when signed out) announces the session state to every window.
      await g.api.invoke('session.signOut', { forget: false })
    })
    await app.page.waitForFunction(() => ((globalThis as unknown as PageGlobal).seen ?? []).length === 1, undefined, { timeout: 5_000 })
    await app.page.evaluate(async () => {
      const g = globalThis as unknown as PageGlobal
      g.stop?.()
      await g.api.invoke('session.signOut', { forget: false })
    })
    await new Promise((r) => setTimeout(r, 300))
    expect(await app.page.evaluate(() => (globalThis as unknown as PageGlobal).seen)).toEqual([
      { status: 'signedOut', account: null, tokensPersisted: false, notice: null, noticeCode: null }
    ])
  })

  it('ran the page without errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
