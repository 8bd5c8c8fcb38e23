import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchApp, pickOption, type LaunchedApp } from './support/harness'

// Membership passes in the browser, on the demo tenant: after a sync of everything the sync
// screen offers them with their cost; once they ran, a call type and a direction are answered
// offline with the service's own counts and no banner. Over calls cached without them, the
// banner's action runs the passes (no analysis) instead of a sync of the type.

/** The count of the results shown, once the search has settled on it. */
async function settledTotal(page: Page): Promise<number> {
  const count = page.getByTestId('result-count')
  await expect.poll(() => count.getAttribute('data-state'), { timeout: 20_000 }).toBe('ready')
  return Number(await count.getAttribute('data-total'))
}

/** Syncs everything (all types, all results) over the last `days` days and waits for the end. */
async function syncEverything(page: Page, days: number): Promise<void> {
  await page.getByTestId('nav-sync').click()
  await page.getByTestId(`sync-date-${days}`).click()
  await page.getByTestId('sync-results').getByText('All results').click()
  const progress = page.getByTestId('sync-progress')
  const before = (await progress.count()) > 0 ? await progress.getAttribute('data-run') : null
  await page.getByTestId('sync-start').click()
  // This run's end, not the panel of the run before it.
  await expect
    .poll(async () => (await progress.getAttribute('data-run')) !== before && (await progress.getAttribute('data-phase')) === 'done', {
      timeout: 180_000
    })
    .toBe(true)
}

/**
 * The service's count of the query on screen: its pages in service mode, counted to the end
 * (the envelope's total is not always sent), then back to local mode.
 */
async function serviceCount(page: Page): Promise<number> {
  await page.getByTestId('mode-service').click()
  await expect.poll(() => page.getByTestId('search-mode').getAttribute('class')).toContain('mode-service')
  const count = page.getByTestId('result-count')
  let sum = 0
  for (let i = 0; i < 50; i++) {
    await expect.poll(() => count.getAttribute('data-state'), { timeout: 20_000 }).toBe('ready')
    await page.getByTestId('remote-next').waitFor()
    const text = await count.textContent()
    sum += Number(await count.getAttribute('data-total'))
    if (await page.getByTestId('remote-next').isDisabled()) break
    await page.getByTestId('remote-next').click()
    await expect.poll(() => count.textContent(), { timeout: 20_000 }).not.toBe(text)
  }
  await page.getByTestId('mode-local').click()
  return sum
}

async function pickType(page: Page, name: string): Promise<void> {
  await page.getByTestId('filter-types').click()
  await page.getByRole('option', { name }).click()
  await page.keyboard.press('Escape')
}

describe('membership passes in the browser', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('offers the passes with their estimate after a sync of everything, and runs them', async () => {
    const { page } = app
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    await syncEverything(page, 7)
    const offer = page.getByTestId('membership-offer')
    await offer.waitFor({ timeout: 15_000 })
    const estimate = (await page.getByTestId('membership-estimate').textContent()) ?? ''
    const m = /^Also learn call types, answered and direction: about ([\d,]+) requests, ([\d,]+) minutes?$/.exec(estimate.trim())
    expect(m, estimate).not.toBeNull()
    expect(Number(m![1]!.replace(/,/g, ''))).toBeGreaterThan(0)
    await app.screenshot('60-membership-offer')
    await page.getByTestId('membership-start').click()
    await page.getByTestId('membership-pass').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('membership-pass').textContent()).toMatch(/Pass \d+ of \d+: /)
    await page.getByTestId('membership-done').waitFor({ timeout: 180_000 })
    expect(await page.getByTestId('sync-progress').getAttribute('data-phase')).toBe('done')
    expect(await offer.count()).toBe(0)
  }, 400_000)

  it('answers a call type and a direction offline with the service counts, and no banner', async () => {
    const { page } = app
    await page.getByTestId('nav-search').click()
    await page.getByTestId('mode-local').click()
    await page.getByTestId('filter-date-7').click()
    await pickType(page, 'Fatura İtirazı (BillingDispute)')
    await page.getByTestId('filter-direction').click()
    await pickOption(page, 'Code 2')
    const local = await settledTotal(page)
    expect(local).toBeGreaterThan(0)
    expect(await page.getByTestId('coverage-banner').count()).toBe(0)
    await app.screenshot('61-membership-filters')

    expect(await serviceCount(page)).toBe(local)

    // The type alone, every direction: still the service's count.
    await page.getByTestId('filter-direction').click()
    await pickOption(page, 'Any direction')
    const typeOnly = await settledTotal(page)
    expect(typeOnly).toBeGreaterThan(local)
    expect(await page.getByTestId('coverage-banner').count()).toBe(0)
    expect(await serviceCount(page)).toBe(typeOnly)
  })

  it('over calls cached without memberships, the banner runs a membership pass and goes away', async () => {
    const { page } = app
    await syncEverything(page, 30)
    // The offer is left alone: the 30 days' calls are cached, their filters not learnt.
    await page.getByTestId('membership-offer').waitFor({ timeout: 15_000 })
    await page.getByTestId('nav-search').click()
    await page.getByTestId('filter-date-30').click()
    const banner = page.getByTestId('coverage-banner')
    await banner.waitFor({ timeout: 20_000 })
    const action = page.getByTestId('coverage-sync')
    expect(await action.textContent()).not.toBe('Sync this')
    await app.screenshot('62-membership-banner')
    await action.click()
    await page.getByTestId('membership-pass').waitFor({ timeout: 30_000 })
    await page.getByTestId('membership-done').waitFor({ timeout: 300_000 })
    await page.getByTestId('nav-search').click()
    await expect.poll(() => banner.count(), { timeout: 20_000 }).toBe(0)
    const local = await settledTotal(page)
    expect(local).toBeGreaterThan(0)
    expect(await serviceCount(page)).toBe(local)
  }, 600_000)

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
