import { readFileSync } from 'node:fs'
import { parse } from 'csv-parse/sync'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syncDemoWeek } from './support/demo-week'
import { launchApp, type LaunchedApp } from './support/harness'

// The analyst's polish list on the demo, through the real router: placeholders on the blank
// dropdowns, Ctrl+N in the sidebar's order, a single click opening a call with its review in
// view, headers not uppercased by CSS, Turkish decimals, and the record's extra fields named
// in Settings, shown as a column and exported as CSV columns with typed values.

const SHOTS = process.env['CALLSIGHT_SHOTS'] ?? '/tmp/polish39-shots'

describe('polish', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 }, locale: 'en-GB' })
  })
  afterAll(async () => {
    await app?.close()
  })

  const shot = (page: Page, name: string): Promise<Buffer> => page.screenshot({ path: `${SHOTS}/${name}.png` })

  it('names the "any" choice of the blank dropdowns and opens the N-th sidebar item with Ctrl+N', async () => {
    const { page } = app
    await syncDemoWeek(page)
    expect(await page.getByTestId('sync-direction').textContent()).toContain('Any direction')
    await page.getByTestId('nav-search').click()
    await page.getByTestId('row-0').waitFor()
    expect(await page.getByTestId('filter-direction').textContent()).toContain('Any direction')

    await page.keyboard.press('Control+3')
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 15_000 }).toBe('#/review')
    await page.keyboard.press('Control+4')
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 15_000 }).toBe('#/insight')
    await page.keyboard.press('Control+1')
    await expect.poll(() => page.evaluate(() => location.hash), { timeout: 15_000 }).toBe('#/search')
  })

  it('opens a call with one click, its review in view, and uppercases no header', async () => {
    const { page } = app
    const row = page.getByTestId('row-2')
    const id = await row.getAttribute('data-call-id')
    await row.click()
    await page.getByTestId('call-detail').waitFor()
    await expect.poll(() => page.getByTestId('detail-call-id').textContent()).toBe(id)
    expect(await page.getByTestId('selection-count').count()).toBe(0)
    const review = await page.getByTestId('review-panel').boundingBox()
    expect(review).not.toBeNull()
    expect(review!.y).toBeLessThan(900)
    expect(await page.locator('.results-head').evaluate((el) => getComputedStyle(el).textTransform)).toBe('none')
    await shot(page, 'en-detail')
    await page.keyboard.press('Escape')
  })

  it('names an extra field in Settings, shows it as a column and exports it as a typed CSV column', async () => {
    const { page } = app
    await page.getByTestId('nav-settings').click()
    const fields = page.getByTestId('settings-record-fields')
    await fields.getByTestId('record-field-agentName').waitFor({ timeout: 30_000 })
    await fields.getByTestId('record-field-en-agentName').fill('Rep')
    await fields.getByTestId('record-field-en-agentName').press('Tab')
    await fields.getByTestId('record-field-tr-agentName').fill('Temsilci Adı')
    await fields.getByTestId('record-field-tr-agentName').press('Tab')
    await fields.getByTestId('record-field-column-agentName').click()
    await fields.getByTestId('record-field-export-language').click()
    await fields.scrollIntoViewIfNeeded()
    await shot(page, 'en-settings-record-fields')

    await page.getByTestId('nav-search').click()
    await expect.poll(() => page.getByTestId('sort-col-extra:agentName').textContent(), { timeout: 10_000 }).toContain('Rep')
    // The column chosen in Settings has its values on arrival, not only after the next search.
    await expect
      .poll(async () => ((await page.getByTestId('row-0').locator('[data-col="extra:agentName"]').textContent()) ?? '').trim(), {
        timeout: 10_000
      })
      .not.toBe('')

    await page.getByTestId('export-open').click()
    const dialog = page.getByTestId('export-dialog')
    await dialog.waitFor()
    await dialog.getByText('CSV', { exact: true }).click()
    await dialog.getByTestId('export-extra-fields').waitFor()
    expect(await dialog.getByTestId('export-extra-language').locator('input').isChecked()).toBe(false)
    await shot(page, 'en-export-dialog')
    const downloading = page.waitForEvent('download', { timeout: 60_000, predicate: (d) => d.suggestedFilename().endsWith('.csv') })
    await page.getByTestId('export-start').click()
    const download = await downloading
    const rows = parse(readFileSync(await download.path(), 'utf8'), { bom: true, columns: true }) as Array<Record<string, string>>
    expect(rows.length).toBeGreaterThan(0)
    const header = Object.keys(rows[0]!)
    expect(header).toContain('Rep')
    expect(header).toContain('Duration (s)')
    expect(header).not.toContain('Language')
    expect(rows[0]!['Duration (s)']).toMatch(/^\d+(\.\d+)?$/)
  })

  it('in Turkish: the user’s name heads the column, decimals have a comma', async () => {
    const { page } = app
    await page.getByTestId('nav-settings').click()
    await page.getByTestId('settings-language').getByText('Türkçe', { exact: true }).click()
    await page.getByTestId('nav-search').click()
    await expect.poll(() => page.getByTestId('sort-col-extra:agentName').textContent(), { timeout: 10_000 }).toContain('Temsilci Adı')
    await page.getByTestId('row-0').click()
    const talk = page
      .getByTestId('detail-analysis')
      .locator('tr', { has: page.locator('th[title$="talkRatio"]') })
      .locator('td')
    await expect.poll(() => talk.textContent(), { timeout: 10_000 }).toMatch(/^\s*0,\d\d\s*$/)
    await shot(page, 'tr-detail')
    await page.keyboard.press('Escape')
    await page.getByTestId('nav-settings').click()
    await page.getByTestId('settings-record-fields').scrollIntoViewIfNeeded()
    await shot(page, 'tr-settings-record-fields')
    await page.getByTestId('nav-review').click()
    await shot(page, 'tr-review')
  })
})
