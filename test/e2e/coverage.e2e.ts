import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchApp, type LaunchedApp } from './support/harness'

// Offline answers that say what they lack: on the demo tenant (whose catalog has English
// Values and Turkish Descriptions), sync one call type, then ask for another. The results
// carry a banner naming what is not synced, and its two actions lead to a whole answer.

/** The fill's share of the bar, in percent, as the browser laid it out. */
async function fillPercent(page: Page): Promise<number> {
  return page.getByTestId('sync-progressbar').evaluate((bar) => {
    const fill = bar.querySelector('.p-progressbar-value')
    if (!fill) return -1
    return (fill.getBoundingClientRect().width / bar.getBoundingClientRect().width) * 100
  })
}

describe('coverage over local results', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('syncs one call type, and the progress bar is filled as far as its label says', async () => {
    const { page } = app
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-7').click()
    await page.getByTestId('sync-types').click()
    await page.getByRole('option', { name: 'Şikayet (Complaint)' }).click()
    await page.keyboard.press('Escape')
    await page.getByTestId('sync-start').click()
    const progress = page.getByTestId('sync-progress')
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    const bar = page.getByTestId('sync-progressbar')
    await expect.poll(() => bar.getAttribute('aria-valuenow')).toBe('100')
    expect(await bar.locator('.p-progressbar-label').textContent()).toBe('100%')
    // The fill follows the label (its width transition lasts a fraction of a second).
    await expect.poll(() => fillPercent(page), { timeout: 5_000 }).toBeGreaterThan(99.5)
    await app.screenshot('50-sync-type-done')
  })

  it('shows a banner naming the type that is not synced, over the results', async () => {
    const { page } = app
    await page.getByTestId('nav-search').click()
    await page.getByTestId('mode-local').click()
    await page.getByTestId('filter-types').click()
    await page.getByRole('option', { name: 'İade Talebi (Refund)' }).click()
    await page.keyboard.press('Escape')
    const banner = page.getByTestId('coverage-banner')
    await banner.waitFor({ timeout: 15_000 })
    const text = (await page.getByTestId('coverage-text').textContent()) ?? ''
    expect(text).toMatch(/^Not synced: call type İade Talebi, answered only, .+\. Results may be incomplete\.$/)
    await app.screenshot('51-coverage-banner')

    // The synced type alone is answered in full: no banner.
    await page.getByTestId('filter-types').click()
    await page.getByRole('option', { name: 'İade Talebi (Refund)' }).click()
    await page.getByRole('option', { name: 'Şikayet (Complaint)' }).click()
    await page.keyboard.press('Escape')
    await expect.poll(() => page.getByTestId('result-count').getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
    await expect.poll(() => banner.count(), { timeout: 10_000 }).toBe(0)
    expect(Number(await page.getByTestId('result-count').getAttribute('data-total'))).toBeGreaterThan(0)

    // Back to the type that is not synced.
    await page.getByTestId('filter-types').click()
    await page.getByRole('option', { name: 'Şikayet (Complaint)' }).click()
    await page.getByRole('option', { name: 'İade Talebi (Refund)' }).click()
    await page.keyboard.press('Escape')
    await banner.waitFor({ timeout: 15_000 })
  })

  it('"Search the service" asks the service the same query', async () => {
    const { page } = app
    await page.getByTestId('coverage-remote').click()
    await expect.poll(() => page.getByTestId('search-mode').getAttribute('class')).toContain('mode-service')
    await page.getByTestId('row-0').waitFor({ timeout: 20_000 })
    // The type filter went along: the service answered for Refund.
    expect(await page.getByTestId('filter-types').textContent()).toContain('İade Talebi')
    expect(await page.getByTestId('coverage-banner').count()).toBe(0)
    await app.screenshot('52-coverage-search-service')
    await page.getByTestId('mode-local').click()
    await page.getByTestId('coverage-banner').waitFor({ timeout: 15_000 })
  })

  it('"Sync this" opens the sync screen with the missing scope filled in, and syncing it clears the banner', async () => {
    const { page } = app
    await page.getByTestId('coverage-sync').click()
    await page.getByTestId('sync-start').waitFor()
    expect(await page.getByTestId('sync-types').textContent()).toContain('İade Talebi')
    await app.screenshot('53-coverage-sync-this')
    await page.getByTestId('sync-start').click()
    const progress = page.getByTestId('sync-progress')
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    await expect.poll(() => fillPercent(page), { timeout: 5_000 }).toBeGreaterThan(99.5)
    await page.getByTestId('nav-search').click()
    // The results read before this sync are read again: now they hold the synced type.
    await expect
      .poll(async () => Number(await page.getByTestId('result-count').getAttribute('data-total')), { timeout: 15_000 })
      .toBeGreaterThan(0)
    await expect.poll(() => page.getByTestId('coverage-banner').count(), { timeout: 10_000 }).toBe(0)
  })

  it('imports a call type catalog file in Settings, and the type filter offers it by its Description', async () => {
    const { page } = app
    await page.getByTestId('nav-settings').click()
    const panel = page.getByTestId('settings-catalog')
    await panel.waitFor()
    await expect.poll(() => page.getByTestId('catalog-value-0').inputValue()).not.toBe('')
    const before = await panel.locator('tbody tr').count()
    await page.getByTestId('catalog-file').setInputFiles({
      name: 'catalog.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('Value;Description\nShipping;Kargo Takibi\nRefund;İade Talebi\n')
    })
    await expect.poll(() => panel.locator('tbody tr').count()).toBe(before + 1)
    const shipping = await panel
      .locator('tbody tr')
      .evaluateAll((trs) => trs.findIndex((tr) => (tr.querySelector('input') as HTMLInputElement).value === 'Shipping'))
    expect(shipping).toBeGreaterThanOrEqual(0)
    // Edited by hand and saved: the new Description is what the filter offers.
    await page.getByTestId(`catalog-description-${shipping}`).fill('Kargo Takip')
    await page.getByTestId('catalog-save').click()
    await page.getByText('Call types saved').waitFor()
    await app.screenshot('55-settings-catalog')
    await page.getByTestId('nav-search').click()
    await page.getByTestId('filter-types').click()
    await page.getByRole('option', { name: 'Kargo Takip (Shipping)' }).waitFor()
    await page.keyboard.press('Escape')
  })

  it('a term on an analysis key over a type synced without analysis: the banner says so, and "Sync this" ticks analysis', async () => {
    const { page } = app
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-7').click()
    await page.getByTestId('sync-types').click()
    // The form comes back as the last run left it (Refund, from "Sync this"): Sales alone here.
    for (const name of ['İade Talebi (Refund)', 'Şikayet (Complaint)']) {
      const option = page.getByRole('option', { name })
      if ((await option.getAttribute('aria-selected')) === 'true') await option.click()
    }
    await page.getByRole('option', { name: 'Satış (Sales)' }).click()
    await page.keyboard.press('Escape')
    await page.getByTestId('sync-analysis').click()
    expect(await page.locator('#sync-analysis').isChecked()).toBe(false)
    await page.getByTestId('sync-start').click()
    const progress = page.getByTestId('sync-progress')
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')

    await page.getByTestId('nav-search').click()
    await page.getByTestId('filter-types').click()
    await page.getByRole('option', { name: 'İade Talebi (Refund)' }).click()
    await page.getByRole('option', { name: 'Satış (Sales)' }).click()
    await page.keyboard.press('Escape')
    // Sales alone, no analysis asked for: the scope answers it.
    await expect.poll(() => page.getByTestId('result-count').getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
    await expect.poll(() => page.getByTestId('coverage-banner').count(), { timeout: 10_000 }).toBe(0)
    await page.getByTestId('search-input').fill('sentiment:Negative')
    await page.getByTestId('coverage-banner').waitFor({ timeout: 15_000 })
    expect(await page.getByTestId('coverage-text').textContent()).toMatch(
      /^Not synced: call type Satış, answered only, with analysis, .+\. Results may be incomplete\.$/
    )
    await app.screenshot('56-coverage-analysis')
    await page.getByTestId('coverage-sync').click()
    await page.getByTestId('sync-start').waitFor()
    expect(await page.getByTestId('sync-types').textContent()).toContain('Satış')
    expect(await page.locator('#sync-analysis').isChecked()).toBe(true)
    await page.getByTestId('nav-search').click()
    await page.getByTestId('search-input').fill('')
  })

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
