import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { syncDemoWeek } from './support/demo-week'
import { launchApp, pickOption, type LaunchedApp } from './support/harness'

// The small things a day of use runs into, on the demo in English: a "last 30 days" saved
// search stays relative, direction is a choice, the type dropdown's filter takes the typing
// at once, "/" focuses the search bar once per press, and the next call is read from its top.

interface StoredSaved {
  name: string
  relativeDays?: number
  query: { from: number | null; to: number | null }
}

describe('workspace details', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('saves "last 30 days" as a relative range', async () => {
    const { page } = app
    await syncDemoWeek(page)
    await page.getByTestId('nav-search').click()
    await page.getByTestId('filter-date-30').click()
    await page.getByTestId('saved-open').click()
    await page.getByTestId('saved-name').fill('Cancellations – last 30 days')
    await page.getByTestId('saved-save').click()
    const relative = page.locator('[data-testid^="saved-relative-"]')
    await relative.waitFor()
    expect(await relative.textContent()).toBe('last 30 days')
    const settings = JSON.parse(readFileSync(join(app.serve.dataDir, 'settings.json'), 'utf8')) as { savedSearches: StoredSaved[] }
    const saved = settings.savedSearches.find((s) => s.name === 'Cancellations – last 30 days')
    expect(saved?.relativeDays).toBe(30)
    expect(saved?.query.from).toBeNull()
    expect(saved?.query.to).toBeNull()
    await page.keyboard.press('Escape')
  })

  it('offers direction as a choice of codes, and focuses the call-type filter box on open', async () => {
    const { page } = app
    await page.getByTestId('filter-direction').click()
    await pickOption(page, 'Code 2')
    await expect.poll(() => page.getByTestId('filter-direction').textContent()).toContain('Code 2')
    await page.getByTestId('filter-direction').click()
    await pickOption(page, 'Any direction')

    await page.getByTestId('filter-types').click()
    await expect.poll(() => page.evaluate(() => document.activeElement?.classList.contains('p-multiselect-filter') ?? false)).toBe(true)
    await page.keyboard.press('Escape')
  })

  it('"/" on another screen opens search with its bar focused, once: coming back later leaves the focus alone', async () => {
    const { page } = app
    const barFocused = (): Promise<boolean> => page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'search-input')
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-start').waitFor()
    await page.keyboard.press('/')
    await expect.poll(barFocused).toBe(true)
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-start').waitFor()
    await page.getByTestId('nav-search').click()
    await page.getByTestId('row-0').waitFor()
    // The screen has mounted and shown its rows: a focus it were to take would have been taken.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))))
    expect(await barFocused()).toBe(false)
  })

  it('reads the next call from its top', async () => {
    const { page } = app
    // A short window, so the detail scrolls.
    await page.setViewportSize({ width: 1440, height: 420 })
    await page.getByTestId('filter-reset').click()
    // A single click opens the call.
    await page.getByTestId('row-0').click()
    const detail = page.getByTestId('call-detail')
    await page.getByTestId('detail-analysis').waitFor()
    await detail.evaluate((el) => (el.scrollTop = el.scrollHeight))
    expect(await detail.evaluate((el) => el.scrollTop)).toBeGreaterThan(0)
    await page.getByTestId('detail-next').click()
    await expect.poll(() => detail.evaluate((el) => el.scrollTop)).toBe(0)
    await page.keyboard.press('Escape')
    await page.setViewportSize({ width: 1440, height: 900 })
    expect(app.pageErrors).toEqual([])
  })
})
