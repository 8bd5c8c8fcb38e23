import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CallsightApi } from '../../src/shared/ipc/contract'
import { startService, type RunningService } from '../../src/service'
import { launchApp, type LaunchedApp } from './support/harness'

// A day of use, in English and in Turkish (issue 18, part A): the sign-in form's address
// errors, a sync that fetches the newest calls first and is cancelled half-way, ages that are
// never in the future, and one message per failure. `callsight serve` and headless Chromium,
// a reference service on 127.0.0.1.

type PageGlobal = { api: CallsightApi }

const WORDS = {
  en: {
    system: { LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' },
    locale: 'en-US',
    addressField: 'Service address',
    passwordKept: 'Your password is kept',
    newest: 'Newest first',
    justNow: 'just now',
    future: /\bin \d+ (second|minute)/,
    searchAdvice: /local search/i
  },
  tr: {
    system: { LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
    locale: 'tr-TR',
    addressField: 'Servis adresi',
    passwordKept: 'Parolanız korundu',
    newest: 'Önce en yeni',
    justNow: 'az önce',
    future: /\d+ (saniye|dakika) sonra/,
    searchAdvice: /yerel arama/i
  }
} as const

/** Calls the app's own API from the page, as the renderer does. */
async function invoke<T>(page: Page, channel: string, request: unknown): Promise<T> {
  return page.evaluate(
    async ([c, r]) => {
      const api = (globalThis as unknown as PageGlobal).api as unknown as { invoke(c: string, r: unknown): Promise<{ ok: boolean; value?: unknown; error?: { message: string } }> }
      const res = await api.invoke(c, r)
      if (!res.ok) throw new Error(res.error?.message)
      return res.value
    },
    [channel, request] as const
  ) as Promise<T>
}

describe.each(['en', 'tr'] as const)('a working day (%s)', (lang) => {
  const w = WORDS[lang]
  let app: LaunchedApp
  let service: RunningService
  let gone: RunningService

  beforeAll(async () => {
    ;[service, gone] = await Promise.all([
      startService({ calls: 4_000, seed: 18, tz: 'Europe/Istanbul', rateLimit: { requests: 6_000, perSeconds: 60 }, quiet: true }),
      startService({ calls: 10, quiet: true })
    ])
    // Nothing listens on this one's port any more: a refused connection.
    await gone.stop()
    app = await launchApp({ serve: { env: w.system }, locale: w.locale, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
    await service?.stop()
  })

  async function fillSignIn(url: string, password = 'demo'): Promise<void> {
    const { page } = app
    await page.getByTestId('signin-url').fill(url)
    await page.getByTestId('signin-username').fill('demo')
    await page.getByTestId('signin-password').fill(password)
  }

  it('names the address field for an address without https://, and keeps the password', async () => {
    const { page } = app
    await page.getByTestId('signin-form').waitFor({ timeout: 20_000 })
    await fillSignIn(service.url.replace(/^http:\/\//, ''), 'typed-once')
    await page.getByTestId('signin-submit').click()
    const error = page.getByTestId('signin-url-error')
    await error.waitFor({ timeout: 10_000 })
    const text = (await error.textContent()) ?? ''
    expect(text).toContain(w.addressField)
    expect(text).toContain('https://')
    expect(text).toContain(w.passwordKept)
    expect(text).not.toMatch(/baseUrl/)
    expect(await page.getByTestId('signin-password').inputValue()).toBe('typed-once')
    expect(await page.getByTestId('signin-url').getAttribute('aria-invalid')).toBe('true')
    await app.screenshot(`18a-${lang}-address-error`)
  })

  it('reports a refused connection within a second, with advice for this screen', async () => {
    const { page } = app
    await fillSignIn(gone.url, 'typed-twice')
    const started = Date.now()
    await page.getByTestId('signin-submit').click()
    const error = page.getByTestId('signin-error')
    await error.waitFor({ timeout: 10_000 })
    const took = Date.now() - started
    // One second for the app; the rest is the browser and this busy machine drawing it.
    expect(took).toBeLessThan(1_500)
    expect(await error.getAttribute('data-code')).toBe('Network')
    await page.getByTestId('error-advice').waitFor()
    const text = (await error.textContent()) ?? ''
    // The sign-in form has no search: no promise that local search still works.
    expect(text).not.toMatch(w.searchAdvice)
    expect(await page.getByTestId('signin-password').inputValue()).toBe('typed-twice')
    await app.screenshot(`18a-${lang}-refused`)
  })

  it('defaults to syncing newest first', async () => {
    const { page } = app
    await fillSignIn(service.url)
    await page.getByTestId('signin-submit').click()
    await page.getByTestId('results-grid').waitFor({ timeout: 60_000 })
    await page.getByTestId('nav-settings').click()
    const pressed = page.getByTestId('settings-sync-order').locator('[aria-pressed="true"]')
    await expect.poll(() => pressed.textContent(), { timeout: 10_000 }).toContain(w.newest)
  })

  it('cancelled half-way, the cache holds the newest calls, and the cancel is not an error', async () => {
    const { page } = app
    // Slow answers, so the run can be stopped in the middle.
    service.admin.setFaults({ latencyMs: 400 })
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-90').click()
    await page.getByTestId('sync-start').click()
    const progress = page.getByTestId('sync-progress')
    await expect.poll(async () => Number((await page.getByTestId('sync-stored').textContent())?.replace(/\D/g, '') || '0'), { timeout: 60_000 }).toBeGreaterThan(0)
    await page.getByTestId('sync-cancel').click()
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 30_000 }).toBe('cancelled')
    await page.getByTestId('sync-cancelled-note').waitFor()
    expect(await page.locator('.error-notice').count()).toBe(0)
    await app.screenshot(`18a-${lang}-sync-cancelled`)

    // The newest call of the service is in the cache; the oldest of the range is not.
    const newestFirst = await invoke<{ rows: Array<{ callAt: number }> }>(page, 'search.page', { query: { sort: 'date_desc' }, offset: 0, limit: 1 })
    const oldestFirst = await invoke<{ rows: Array<{ callAt: number }> }>(page, 'search.page', { query: { sort: 'date_asc' }, offset: 0, limit: 1 })
    const answered = service.admin.dump().filter((d) => d.result === 1 && Date.parse(d.callDate) < Date.now())
    const times = answered.map((d) => Date.parse(d.callDate)).sort((a, b) => a - b)
    expect(newestFirst.rows[0]!.callAt).toBe(times[times.length - 1])
    expect(oldestFirst.rows[0]!.callAt).toBeGreaterThan(times[0]!)
  })

  it('resumes to the end, and the status bar says "just now" at once, never a time to come', async () => {
    const { page } = app
    service.admin.setFaults({})
    await page.getByTestId('sync-start').click()
    const progress = page.getByTestId('sync-progress')
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    const freshness = page.getByTestId('cache-freshness')
    await expect.poll(() => freshness.textContent(), { timeout: 5_000 }).toContain(w.justNow)
    const scopes = (await page.getByTestId('sync-scopes').textContent()) ?? ''
    expect(scopes).toContain(w.justNow)
    expect(`${await freshness.textContent()} ${scopes}`).not.toMatch(w.future)
    await app.screenshot(`18a-${lang}-sync-done`)
  })

  it('says an offline sync failure once, in the run panel', async () => {
    const { page } = app
    service.admin.setFaults({ dropRate: 1 })
    await page.getByTestId('sync-full').click()
    const progress = page.getByTestId('sync-progress')
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 60_000 }).toBe('failed')
    await page.getByTestId('sync-run-error').waitFor()
    // Give a toast or a second notice time to appear, then count.
    await page.waitForTimeout(500)
    expect(await page.locator('.error-notice').count()).toBe(1)
    expect(await page.locator('.p-toast-message').count()).toBe(0)
    expect(await page.getByTestId('sync-offline').count()).toBe(0)
    expect((await page.getByTestId('sync-run-error').textContent()) ?? '').not.toMatch(w.searchAdvice)
    service.admin.setFaults({})
    await app.screenshot(`18a-${lang}-sync-failed-once`)
  })

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
