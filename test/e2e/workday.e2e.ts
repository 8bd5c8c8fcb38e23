import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type RunningService } from '../../src/reference-service'
import { launchApp, type LaunchedApp, invokeInPage } from './support/harness'

// A day of use, in English and in Turkish: the sign-in form's address
// errors, a sync that fetches the newest calls first and is cancelled half-way, ages that are
// never in the future, and one message per failure. `callsight serve` and headless Chromium,
// a reference service on 127.0.0.1.

const WORDS = {
  en: {
    system: { LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' },
    locale: 'en-US',
    addressField: 'Service address',
    passwordKept: 'Your password is kept',
    newest: 'Newest first',
    justNow: 'just now',
    future: /\bin \d+ (second|minute)/,
    searchAdvice: /local search/i,
    agent: 'Agent',
    duration: 'Duration (m:ss)'
  },
  tr: {
    system: { LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
    locale: 'tr-TR',
    addressField: 'Servis adresi',
    passwordKept: 'Parolanız korundu',
    newest: 'Önce en yeni',
    justNow: 'az önce',
    future: /\d+ (saniye|dakika) sonra/,
    searchAdvice: /yerel arama/i,
    agent: 'Temsilci',
    duration: 'Süre (dk:sn)'
  }
} as const

const invoke = invokeInPage

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

  it('reports a refused connection without waiting for a timeout, with advice for this screen', async () => {
    const { page } = app
    await fillSignIn(gone.url, 'typed-twice')
    await page.getByTestId('signin-submit').click()
    const error = page.getByTestId('signin-error')
    // The wait's limit catches a refusal left to a timeout; how soon it shows is not asserted
    // (a shared CI machine's clock proves nothing about the app).
    await error.waitFor({ timeout: 10_000 })
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
    await expect
      .poll(async () => Number((await page.getByTestId('sync-stored').textContent())?.replace(/\D/g, '') || '0'), { timeout: 60_000 })
      .toBeGreaterThan(0)
    await page.getByTestId('sync-cancel').click()
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 30_000 }).toBe('cancelled')
    await page.getByTestId('sync-cancelled-note').waitFor()
    expect(await page.locator('.error-notice').count()).toBe(0)
    await app.screenshot(`18a-${lang}-sync-cancelled`)

    // The newest call of the service is in the cache; the oldest of the range is not.
    const newestFirst = await invoke<{ rows: Array<{ callAt: number }> }>(page, 'search.page', {
      query: { sort: 'date_desc' },
      offset: 0,
      limit: 1
    })
    const oldestFirst = await invoke<{ rows: Array<{ callAt: number }> }>(page, 'search.page', {
      query: { sort: 'date_asc' },
      offset: 0,
      limit: 1
    })
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
    // The scopes table is read again when the run ends.
    await expect.poll(async () => (await page.getByTestId('sync-scopes').textContent()) ?? '', { timeout: 5_000 }).toContain(w.justNow)
    const scopes = (await page.getByTestId('sync-scopes').textContent()) ?? ''
    expect(`${await freshness.textContent()} ${scopes}`).not.toMatch(w.future)
    await app.screenshot(`18a-${lang}-sync-done`)
  })

  it('says an offline sync failure once, in the run panel', async () => {
    const { page } = app
    service.admin.setFaults({ dropRate: 1 })
    await page.getByTestId('sync-full').click()
    // A full resync is confirmed first.
    await page.getByTestId('sync-full-yes').click()
    const progress = page.getByTestId('sync-progress')
    // The client retries a dropped connection with backoff before it gives up: time for that.
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 150_000 }).toBe('failed')
    await page.getByTestId('sync-run-error').waitFor()
    // Give a toast or a second notice time to appear, then count.
    await page.waitForTimeout(500)
    expect(await page.locator('.error-notice').count()).toBe(1)
    expect(await page.locator('.p-toast-message').count()).toBe(0)
    expect(await page.getByTestId('sync-offline').count()).toBe(0)
    expect((await page.getByTestId('sync-run-error').textContent()) ?? '').not.toMatch(w.searchAdvice)
    service.admin.setFaults({})
    await app.screenshot(`18a-${lang}-sync-failed-once`)
  }, 200_000)

  /** The text of one chosen column's cells in the first `n` rows. */
  async function columnTexts(page: Page, column: string, n: number): Promise<string[]> {
    const out: string[] = []
    for (let i = 0; i < n; i++)
      out.push(((await page.getByTestId(`row-${i}`).locator(`[data-col="${column}"]`).textContent()) ?? '').trim())
    return out
  }

  it('shows chosen columns (agent, duration, an analysis key), sorts by them, and keeps them for the account', async () => {
    const { page } = app
    await page.getByTestId('nav-search').click()
    await page.getByTestId('results-grid').waitFor()
    await page.getByTestId('column-chooser').click()
    for (const name of [w.agent, w.duration, 'Temsilci Puanı']) await page.getByRole('option', { name, exact: true }).click()
    await page.keyboard.press('Escape')
    const score = 'analysis:agentScore'
    await page.getByTestId(`sort-col-${score}`).waitFor()
    await expect
      .poll(async () => (await columnTexts(page, 'extra:durationSeconds', 3)).every((d) => /^\d+:\d\d$/.test(d)), { timeout: 10_000 })
      .toBe(true)

    // A number column sorts numerically, largest first.
    await page.getByTestId(`sort-col-${score}`).click()
    await expect.poll(() => page.getByTestId(`sort-col-${score}`).getAttribute('aria-sort'), { timeout: 10_000 }).toBe('descending')
    await expect.poll(async () => (await columnTexts(page, score, 1))[0], { timeout: 10_000 }).toBe('100')
    const scores = (await columnTexts(page, score, 20)).map(Number)
    expect(scores).toEqual([...scores].sort((a, b) => b - a))

    // A text column in Turkish order.
    await page.getByTestId('sort-col-extra:agentName').click()
    await expect.poll(() => page.getByTestId('sort-col-extra:agentName').getAttribute('aria-sort'), { timeout: 10_000 }).toBe('ascending')
    const collator = new Intl.Collator('tr', { sensitivity: 'base', numeric: true })
    await expect
      .poll(
        async () => {
          const names = await columnTexts(page, 'extra:agentName', 20)
          return names.every((n) => n !== '') && names.every((n, i) => i === 0 || collator.compare(names[i - 1]!, n) <= 0)
        },
        { timeout: 10_000 }
      )
      .toBe(true)
    await app.screenshot(`18a-${lang}-list-columns`)

    // Kept for the account: a reload shows the same columns, sorted as they were left.
    await page.reload({ waitUntil: 'load' })
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    await page.getByTestId(`sort-col-${score}`).waitFor({ timeout: 15_000 })
    await expect.poll(() => page.getByTestId('sort-col-extra:agentName').getAttribute('aria-sort'), { timeout: 10_000 }).toBe('ascending')
  })

  it('exports selected rows in the list’s column order', async () => {
    const { page } = app
    // A plain click would open the call; Ctrl+click selects the first row and anchors the range.
    await page.getByTestId('row-0').click({ modifiers: ['Control'] })
    await page.getByTestId('row-4').click({ modifiers: ['Shift'] })
    await expect.poll(() => page.getByTestId('selection-count').getAttribute('data-count')).toBe('5')
    const ids = await Promise.all([0, 1, 2, 3, 4].map((i) => page.getByTestId(`row-${i}`).getAttribute('data-call-id')))
    await page.getByTestId('export-open').click()
    const dialog = page.getByTestId('export-dialog')
    await dialog.getByText('CSV', { exact: true }).click()
    // One download: the CSV (its metadata sidecar only on request).
    const downloading = page.waitForEvent('download', { timeout: 30_000, predicate: (d) => d.suggestedFilename().endsWith('.csv') })
    await dialog.getByTestId('export-start').click()
    const download = await downloading
    const lines = readFileSync(await download.path(), 'utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/)
      .slice(1)
    // Turkish headers write the Turkish dialect: ';' between fields.
    expect(lines.map((l) => l.split(lang === 'tr' ? ';' : ',')[0])).toEqual(ids)
    // In a browser tab the browser saved the file: the toast names it, with no desktop file actions.
    await expect.poll(() => page.locator('.p-toast-message-success').filter({ hasText: download.suggestedFilename() }).count()).toBe(1)
    expect(await page.getByTestId('export-open-file').count()).toBe(0)
    expect(await page.getByTestId('export-show-in-folder').count()).toBe(0)
    await page.keyboard.press('Escape')
    // Back to date order, newest first (its rows replace the shown ones once they land).
    await page.getByTestId('sort-date').click()
    await expect.poll(() => page.getByTestId('results-grid').getAttribute('aria-busy'), { timeout: 15_000 }).toBe('false')
  })

  it('gives cut text a tooltip, and text that fits none', async () => {
    const { page } = app
    const summary = page.getByTestId('row-0').locator('[data-col="summary"]')
    // The last case's date sort can still be replacing the shown rows (its rows land after its query
    // is shown), which clears a tooltip set on hover: hover again until row 0 holds still; the
    // tooltip must then be the cell's own full text, never the text of the call shown there before.
    await expect
      .poll(
        async () => {
          await page.mouse.move(0, 0)
          await summary.hover()
          const full = ((await summary.textContent()) ?? '').trim()
          const title = (await summary.getAttribute('title'))?.trim()
          return full.length > 20 && title === full ? 'tooltip is the full text' : `title ${title} for text ${full}`
        },
        { timeout: 10_000 }
      )
      .toBe('tooltip is the full text')
    const duration = page.getByTestId('row-0').locator('[data-col="extra:durationSeconds"]')
    await duration.hover()
    expect(await duration.getAttribute('title')).toBeNull()
  })

  it('keeps a hand-built selection while calls are opened and read one after another', async () => {
    const { page } = app
    // Back in date order (the last test left the column sort).
    await expect.poll(() => page.getByTestId('sort-date').getAttribute('aria-sort'), { timeout: 10_000 }).toBe('descending')
    for (const i of [1, 2, 3, 5]) await page.getByTestId(`row-${i}`).click({ modifiers: ['Control'] })
    const count = page.getByTestId('selection-count')
    await expect.poll(() => count.getAttribute('data-count')).toBe('4')
    // Opening another call (a click) is not a selection gesture.
    await page.getByTestId('row-8').click()
    await page.getByTestId('call-detail').waitFor()
    expect(await count.getAttribute('data-count')).toBe('4')
    // Reading on with ↓ in the detail, and with its button.
    await page.getByTestId('call-detail').focus()
    await page.keyboard.press('ArrowDown')
    await expect.poll(() => page.getByTestId('detail-position').textContent()).toContain('10')
    await page.getByTestId('detail-next').click()
    await expect.poll(() => page.getByTestId('detail-position').textContent()).toContain('11')
    expect(await count.getAttribute('data-count')).toBe('4')
    for (const i of [1, 2, 3, 5]) expect(await page.getByTestId(`row-${i}`).getAttribute('aria-selected')).toBe('true')
    await app.screenshot(`18a-${lang}-selection-kept`)
  })

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
