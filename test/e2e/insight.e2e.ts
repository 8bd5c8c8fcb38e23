import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syncDemoWeek } from './support/demo-week'
import { launchApp, type LaunchedApp } from './support/harness'
import { clickColumn, insightTotal, searchTotal } from './support/insight'

// Insight as an analyst uses it on the demo: the active query as chips (analysis filters
// too), a click on a bar or a day drilling into Search, a chip removed, two periods compared,
// and each chart saved as PNG and its data as CSV.

async function download(page: Page, testid: string): Promise<{ name: string; bytes: Buffer }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()])
  const path = await file.path()
  return { name: file.suggestedFilename(), bytes: readFileSync(path) }
}

describe('Insight', () => {
  let app: LaunchedApp
  let all = 0

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('shows only the answered-only default on an open query, and saves each chart as CSV and PNG', async () => {
    const { page } = app
    await syncDemoWeek(page)
    await page.getByTestId('nav-insight').click()
    all = await insightTotal(page)
    expect(all).toBeGreaterThan(500)
    // Answered only is the default (the service's) and a filter on every count, so it shows alone.
    await page.getByTestId('chip-results').waitFor()
    expect(await page.locator('.query-chip').count()).toBe(1)

    const csv = await download(page, 'perday-csv')
    expect(csv.name).toBe('calls-per-day.csv')
    const lines = csv.bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
    expect(lines[0]).toBe('Day,Calls')
    const counts = lines.slice(1).map((l) => Number(l.split(',')[1]))
    expect(counts.reduce((a, b) => a + b, 0)).toBe(all)

    await page.getByTestId('dist-canvas').waitFor()
    const png = await download(page, 'dist-png')
    expect(png.name.endsWith('.png')).toBe(true)
    expect(png.bytes.subarray(1, 4).toString('latin1')).toBe('PNG')
    expect(png.bytes.length).toBeGreaterThan(2000)
  })

  it('drills into Search from a bar, and shows the analysis filter it added as a chip', async () => {
    const { page } = app
    const dist = await download(page, 'dist-csv')
    const rows = dist.bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
      .slice(1)
    const firstCount = Number(rows[0]!.split(',').at(-1))
    await clickColumn(page.getByTestId('dist-canvas'), 0, rows.length, { left: 56, right: 16, top: 16, bottom: 72 })
    await page.getByTestId('results-grid').waitFor()
    await expect.poll(() => searchTotal(page), { timeout: 15_000 }).toBe(firstCount)
    await app.screenshot('53-insight-drill-down-search')

    await page.getByTestId('nav-insight').click()
    await expect.poll(() => insightTotal(page)).toBe(firstCount)
    const chip = page.locator('[data-testid^="chip-analysis:"]')
    await chip.waitFor()
    await app.screenshot('52-insight-chips')
  })

  it('drills into one day from the per-day chart, then a chip removed widens the query again', async () => {
    const { page } = app
    await page.locator('[data-testid^="chip-remove-analysis:"]').click()
    await expect.poll(() => insightTotal(page)).toBe(all)
    const csv = await download(page, 'perday-csv')
    const rows = csv.bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
      .slice(1)
    const last = rows.length - 1
    const [day, count] = rows[last]!.split(',')
    await clickColumn(page.getByTestId('perday-canvas'), last, rows.length)
    await page.getByTestId('results-grid').waitFor()
    await expect.poll(() => searchTotal(page), { timeout: 15_000 }).toBe(Number(count))
    await page.getByTestId('nav-insight').click()
    await page.getByTestId('chip-dates').waitFor()
    expect(await page.getByTestId('chip-dates').textContent()).toContain(day)
    await page.getByTestId('chip-remove-dates').click()
    await expect.poll(() => insightTotal(page)).toBe(all)
  })

  it('compares two periods side by side', async () => {
    const { page } = app
    await page.getByTestId('insight-date-7').click()
    const current = await insightTotal(page)
    await page.getByTestId('insight-compare').click()
    const other = page.getByTestId('insight-compare-total')
    await other.waitFor({ timeout: 15_000 })
    // The week before the synced one is not in the cache: the comparison reads zero there.
    expect(Number(await other.getAttribute('data-total'))).toBe(0)
    expect(current).toBe(all)
    // The last 30 days hold the synced week: the same calls, spread over a longer period.
    await page.getByTestId('insight-compare-date-30').click()
    await expect.poll(async () => Number(await other.getAttribute('data-total'))).toBe(all)
    await app.screenshot('54-insight-compare')
    const csv = await download(page, 'dist-csv')
    const header = csv.bytes
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .split('\r\n')[0]!
    expect(header.split(',')).toHaveLength(3)
    expect(app.pageErrors).toEqual([])
  })
})
