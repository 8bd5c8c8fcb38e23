import { readFileSync } from 'node:fs'
import { parse } from 'csv-parse/sync'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CallsightApi } from '../../src/shared/ipc/contract'
import { startService, type RunningService } from '../../src/reference-service'
import { launchApp, pickOption, type LaunchedApp } from './support/harness'

// The analyst's workspace end to end: `callsight serve` as a user starts it, the built
// renderer in Chromium at the address it printed, and a reference service on 127.0.0.1 as
// the tenant. The scenarios run in order on one app, as an analyst would: sign in, sync,
// search, read, export (a browser download), then the service goes away and local search
// keeps working.

type PageGlobal = { api: CallsightApi }

async function totalOf(page: Page): Promise<number> {
  const el = page.getByTestId('result-count')
  await expect.poll(() => el.getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
  return Number(await el.getAttribute('data-total'))
}

/** Types into the query bar and waits until the results belong to that text. */
async function searchFor(page: Page, text: string): Promise<number> {
  await page.getByTestId('search-input').fill(text)
  await expect.poll(() => page.getByTestId('result-count').getAttribute('data-query'), { timeout: 10_000 }).toBe(text)
  return totalOf(page)
}

describe('analyst workspace', () => {
  let app: LaunchedApp
  let service: RunningService

  beforeAll(async () => {
    service = await startService({
      calls: 3_000,
      seed: 1,
      tz: 'Europe/Istanbul',
      rateLimit: { requests: 6_000, perSeconds: 60 },
      quiet: true
    })
    app = await launchApp({ viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
    await service?.stop()
  })

  it('signs in to the service, and says the sign-in lasts only while serve runs', async () => {
    const { page } = app
    await page.getByTestId('signin-form').waitFor({ timeout: 20_000 })
    await app.screenshot('01-sign-in')
    await page.getByTestId('signin-url').fill(service.url)
    await page.getByTestId('signin-username').fill('demo')
    await page.getByTestId('signin-password').fill('demo')
    await page.getByTestId('signin-submit').click()
    await page.getByTestId('results-grid').waitFor({ timeout: 60_000 })
    await app.screenshot('02-signed-in')
    // Browser mode keeps tokens in memory only, and Settings says so.
    await page.getByTestId('nav-settings').click()
    await page.getByText('keeps your sign-in only while it runs').waitFor({ timeout: 10_000 })
    await page.getByTestId('nav-search').click()
  })

  it('syncs the last 90 days with visible progress', async () => {
    const { page } = app
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-90').click()
    await page.getByTestId('sync-start').click()
    const progress = page.getByTestId('sync-progress')
    await progress.waitFor({ timeout: 15_000 })
    await page.getByTestId('sync-progressbar').waitFor()
    await app.screenshot('03-sync-progress')
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    const stored = Number((await page.getByTestId('sync-stored').textContent())?.replace(/\D/g, ''))
    expect(stored).toBeGreaterThan(1_000)
    await page.getByTestId('sync-scopes').waitFor()
    await app.screenshot('04-sync-done')
  })

  it('finds calls with Turkish folding: "iptal" matches İPTAL, and the other way round', async () => {
    const { page } = app
    await page.getByTestId('nav-search').click()
    await page.keyboard.press('/')
    const folded = await searchFor(page, 'iptal')
    expect(folded).toBeGreaterThan(0)
    const dotted = await searchFor(page, 'İPTAL')
    expect(dotted).toBe(folded)
    await page.getByTestId('row-0').locator('mark.hit').first().waitFor()
    const hits = await page.locator('.results-row mark.hit').allTextContents()
    expect(hits.length).toBeGreaterThan(0)
    expect(hits.every((h) => /^(i|İ|I)pta/i.test(h))).toBe(true)
    expect(hits.some((h) => h.startsWith('İ'))).toBe(true)
    await app.screenshot('05-search-folded')
  })

  it('filters by an analysis value', async () => {
    const { page } = app
    await searchFor(page, '')
    const all = await totalOf(page)
    // Pick a text parameter and one of its values the way the Insight screen would.
    const pick = await page.evaluate(async () => {
      const api = (globalThis as unknown as PageGlobal).api
      const keys = await api.invoke('search.analysisKeys', {})
      if (!keys.ok) throw new Error(keys.error.message)
      const key = keys.value.find((k) => !k.numeric && k.calls > 0)
      if (!key) throw new Error('no text analysis key')
      const facets = await api.invoke('search.facets', { query: {}, analysisKey: key.key })
      if (!facets.ok) throw new Error(facets.error.message)
      const value = facets.value.perValue.find((v) => v.count > 0)
      return { key: key.key, label: `${key.friendlyName} (${key.key})`, value: value?.value ?? '', count: value?.count ?? 0 }
    })
    expect(pick.count).toBeGreaterThan(0)
    await page.getByTestId('analysis-add').click()
    await page.getByTestId('analysis-key-0').click()
    await pickOption(page, pick.label)
    await page.getByTestId('analysis-value-0').fill(pick.value)
    await expect.poll(() => totalOf(page), { timeout: 15_000 }).toBe(pick.count)
    expect(pick.count).toBeLessThan(all)
    await app.screenshot('06-analysis-filter')
  })

  it('opens the detail of a call and moves to the next one', async () => {
    const { page } = app
    const firstId = await page.getByTestId('row-0').getAttribute('data-call-id')
    // One click opens the call (the detail then focuses its close button: no Enter after it).
    await page.getByTestId('row-0').click()
    const detail = page.getByTestId('call-detail')
    await detail.waitFor()
    await expect.poll(() => page.getByTestId('detail-call-id').textContent()).toBe(firstId)
    await page.getByTestId('detail-analysis').waitFor()
    await expect.poll(() => page.getByTestId('detail-date').textContent()).toContain('Europe/Istanbul')
    await app.screenshot('07-call-detail')
    const secondId = await page.getByTestId('row-1').getAttribute('data-call-id')
    await page.getByTestId('detail-next').click()
    await expect.poll(() => page.getByTestId('detail-call-id').textContent()).toBe(secondId)
    await page.keyboard.press('Escape')
    await expect.poll(() => detail.count()).toBe(0)
  })

  it('selects calls with shift-click and exports them to CSV, saved by the browser', async () => {
    const { page } = app
    await page.getByTestId('filter-reset').click()
    await searchFor(page, 'fatura')
    await page.getByTestId('row-0').click()
    await page.getByTestId('row-3').click({ modifiers: ['Shift'] })
    await page.getByTestId('row-6').click({ modifiers: ['Control'] })
    await expect.poll(() => page.getByTestId('selection-count').getAttribute('data-count')).toBe('5')
    const ids = await Promise.all([0, 1, 2, 3, 6].map((i) => page.getByTestId(`row-${i}`).getAttribute('data-call-id')))

    await page.getByTestId('export-open').click()
    const dialog = page.getByTestId('export-dialog')
    await dialog.waitFor()
    await dialog.getByText('CSV', { exact: true }).click()
    await app.screenshot('08-export-dialog')
    // A CSV export downloads one file: the .meta.json sidecar only when asked for.
    const names: string[] = []
    page.on('download', (d) => names.push(d.suggestedFilename()))
    const downloading = page.waitForEvent('download', { timeout: 30_000, predicate: (d) => d.suggestedFilename().endsWith('.csv') })
    await page.getByTestId('export-start').click()
    const download = await downloading
    const toast = page.locator('.p-toast-message-success').filter({ hasText: 'Export finished' })
    await toast.waitFor({ timeout: 30_000 })
    expect(await toast.textContent()).toContain(`5 calls in ${download.suggestedFilename()}, saved by your browser`)
    await app.screenshot('09-export-done')

    expect(download.suggestedFilename()).toMatch(/^callsight-\d{4}-\d{2}-\d{2}\.csv$/)
    const rows = parse(readFileSync(await download.path(), 'utf8'), { bom: true, columns: true }) as Array<Record<string, string>>
    expect(rows).toHaveLength(5)
    expect(rows.map((r) => Object.values(r)[0]).sort()).toEqual([...ids].sort())
    expect(names).toEqual([download.suggestedFilename()])
    // Sent once: the staged copy is gone from the server.
    const again = await app.context.request.get(download.url())
    expect(again.status()).toBe(404)
  })

  it('charts calls per day and a parameter for the current results, following the filters', async () => {
    const { page } = app
    const insightTotal = async (): Promise<string> => {
      await page.getByTestId('nav-insight').click()
      await page.getByTestId('chart-per-day').locator('canvas').first().waitFor({ timeout: 30_000 })
      return (await page.getByTestId('insight-total').textContent()) ?? ''
    }
    await page.getByTestId('nav-search').click()
    const fatura = await searchFor(page, 'fatura')
    await expect.poll(insightTotal, { timeout: 15_000 }).toContain(fatura.toLocaleString('en-US'))
    await page.getByTestId('chart-distribution').locator('canvas').first().waitFor()
    await app.screenshot('12-insight')

    await page.getByTestId('nav-search').click()
    const iptal = await searchFor(page, 'iptal')
    expect(iptal).not.toBe(fatura)
    await expect.poll(insightTotal, { timeout: 15_000 }).toContain(iptal.toLocaleString('en-US'))
    await page.getByTestId('nav-search').click()
  })

  it('keeps searching offline after the service stops', async () => {
    const { page } = app
    await service.stop()
    // The service mode needs the service: it fails, and says so.
    await page.getByTestId('mode-service').click()
    await page.getByTestId('search-error').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('search-error').getAttribute('data-code')).toMatch(/Network|Timeout/)
    await expect.poll(() => page.getByTestId('connectivity').getAttribute('data-online'), { timeout: 15_000 }).toBe('false')
    await app.screenshot('10-service-offline')
    // Local search answers from the cache.
    await page.getByTestId('mode-local').click()
    const total = await searchFor(page, 'kargo')
    expect(total).toBeGreaterThan(0)
    await page.getByTestId('row-0').locator('mark.hit').first().waitFor()
    await app.screenshot('11-offline-local-search')
  })

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
