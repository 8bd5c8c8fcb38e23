import { readFileSync } from 'node:fs'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syncDemoWeek } from './support/demo-week'
import { launchApp, type LaunchedApp } from './support/harness'
import { clickColumn, insightTotal, searchTotal } from './support/insight'

// Insight's breakdown by any column and a parameter over time, in English and in
// Turkish on the demo: each chart's CSV in the UI language and adding up to the result set, a
// bar drilled into Search with the agent filter shown as a chip, a period drilled by the
// keyboard through the data table, weeks that start on Monday, and a PNG of each.

const WORDS = {
  en: {
    system: { LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' },
    locale: 'en-US',
    agent: 'Agent',
    calls: 'Calls',
    period: 'Period',
    withValue: 'Calls with a value',
    week: 'Per week',
    perDay: 'calls-per-day.csv'
  },
  tr: {
    system: { LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
    locale: 'tr-TR',
    agent: 'Temsilci',
    calls: 'Çağrı',
    period: 'Dönem',
    withValue: 'Değeri olan çağrılar',
    week: 'Haftalık',
    perDay: null
  }
} as const

async function csvRows(page: Page, testid: string): Promise<{ name: string; rows: string[][] }> {
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testid).click()])
  const text = readFileSync(await file.path())
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trim()
  return { name: file.suggestedFilename(), rows: text.split('\r\n').map((l) => l.split(',')) }
}

describe.each(['en', 'tr'] as const)('Insight by column and over time (%s)', (lang) => {
  const w = WORDS[lang]
  let app: LaunchedApp
  let all = 0

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'], env: w.system }, locale: w.locale, viewport: { width: 1440, height: 1000 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('breaks the result set down by agent, in the UI language, adding up to the total', async () => {
    const { page } = app
    await syncDemoWeek(page)
    await page.getByTestId('nav-insight').click()
    all = await insightTotal(page)
    await page.getByTestId('breakdown-canvas').waitFor({ timeout: 15_000 })
    expect(await page.getByTestId('breakdown-column').textContent()).toContain(w.agent)
    const { rows } = await csvRows(page, 'breakdown-csv')
    expect(rows[0]).toEqual([w.agent, w.calls])
    const counted = rows.slice(1).reduce((s, r) => s + Number(r.at(-1)), 0)
    const missingText =
      (await page.getByTestId('breakdown-missing').count()) > 0 ? await page.getByTestId('breakdown-missing').textContent() : '0'
    const missing = Number((missingText ?? '0').replace(/\D/g, ''))
    expect(counted + missing).toBe(all)
    expect(rows.length).toBeGreaterThan(2)
  })

  it('drills from a bar into Search with the agent as a removable chip', async () => {
    const { page } = app
    const { rows } = await csvRows(page, 'breakdown-csv')
    const [agent, count] = [rows[1]![0]!, Number(rows[1]!.at(-1))]
    await clickColumn(page.getByTestId('breakdown-canvas'), 0, rows.length - 1, { left: 56, right: 16, top: 16, bottom: 72 })
    await page.getByTestId('results-grid').waitFor()
    await expect.poll(() => searchTotal(page), { timeout: 15_000 }).toBe(count)
    const chip = page.locator('[data-testid^="chip-field:agentName="]')
    await chip.waitFor()
    expect(await chip.textContent()).toContain(agent)
    expect(await chip.textContent()).toContain(w.agent)
    await app.screenshot(`55-insight-breakdown-drill-${lang}`)
    await page.getByTestId('nav-insight').click()
    await expect.poll(() => insightTotal(page)).toBe(count)
    await page.locator('[data-testid^="chip-remove-field:agentName="]').click()
    await expect.poll(() => insightTotal(page)).toBe(all)
  })

  it('draws a parameter per day and per week, and saves it as CSV and PNG', async () => {
    const { page } = app
    await page.getByTestId('trend-canvas').waitFor({ timeout: 15_000 })
    // The trend is asked for apart from the totals: after the last test's chip came off, wait for its answer.
    await expect.poll(() => page.getByTestId('chart-trend').getAttribute('aria-busy'), { timeout: 15_000 }).toBe('false')
    const daily = await csvRows(page, 'trend-csv')
    expect(daily.rows[0]!.slice(0, 2)).toEqual([w.period, w.withValue])
    expect(daily.rows.length).toBeGreaterThanOrEqual(7)
    for (const r of daily.rows.slice(1)) expect(Number.isFinite(Number(r[2]))).toBe(true)

    await page.getByTestId('trend-bucket').getByText(w.week, { exact: true }).click()
    await expect.poll(async () => (await csvRows(page, 'trend-csv')).rows.length).toBeLessThan(daily.rows.length)
    const weekly = await csvRows(page, 'trend-csv')
    // Weeks start on Monday, and hold every day's calls once.
    for (const r of weekly.rows.slice(1)) expect(new Date(`${r[0]}T12:00:00Z`).getUTCDay()).toBe(1)
    const sum = (rows: string[][]): number => rows.slice(1).reduce((s, r) => s + Number(r[1]), 0)
    expect(sum(weekly.rows)).toBe(sum(daily.rows))

    const [png] = await Promise.all([page.waitForEvent('download'), page.getByTestId('trend-png').click()])
    const bytes = readFileSync(await png.path())
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG')
    await app.screenshot(`56-insight-trend-${lang}`)
    await page.getByTestId('trend-bucket').getByRole('button').first().click()
  })

  it('drills into one day with the keyboard, through the data table', async () => {
    const { page } = app
    const perDay = await csvRows(page, 'perday-csv')
    if (w.perDay) expect(perDay.name).toBe(w.perDay)
    await page.getByTestId('trend-table').locator('summary').focus()
    await page.keyboard.press('Enter')
    const first = page.getByTestId('trend-drill').first()
    await first.waitFor()
    await page.keyboard.press('Tab')
    await expect.poll(() => first.evaluate((el) => el === document.activeElement)).toBe(true)
    await page.keyboard.press('Enter')
    await page.getByTestId('results-grid').waitFor()
    // The first day with a value is the first day of the per-day chart: its calls exactly.
    await expect.poll(() => searchTotal(page), { timeout: 15_000 }).toBe(Number(perDay.rows[1]![1]))
    await page.getByTestId('nav-insight').click()
    await page.getByTestId('chip-remove-dates').click()
    await expect.poll(() => insightTotal(page)).toBe(all)
    expect(app.pageErrors).toEqual([])
  })
})
