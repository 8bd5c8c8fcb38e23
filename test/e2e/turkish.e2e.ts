import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { englishOnScreen, englishVocabulary } from './support/english-words'
import { launchApp, type LaunchedApp } from './support/harness'
import { tr } from '../../src/renderer/src/i18n/tr'

// The workspace in Turkish from end to end, on the demo: every screen is walked and its
// visible text (titles, placeholders and aria-labels too) checked against the English UI
// vocabulary, so a hard-coded English string fails here. Numbers, percentages, the date
// picker and the call's other fields are read as a Turkish analyst reads them.

const vocab = englishVocabulary()

async function expectNoEnglish(page: Page, where: string): Promise<void> {
  expect(await englishOnScreen(page, vocab), where).toEqual([])
}

/** The names Intl gives, computed here the same way the page does. */
const monthTr = (d: Date): string => new Intl.DateTimeFormat('tr-TR', { month: 'long', timeZone: 'Europe/Istanbul' }).format(d)
const monthEn = (d: Date): string => new Intl.DateTimeFormat('en-GB', { month: 'long', timeZone: 'Europe/Istanbul' }).format(d)

describe('Turkish workspace', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({
      serve: { args: ['--demo'], env: { LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' } },
      locale: 'tr-TR',
      viewport: { width: 1440, height: 900 }
    })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('syncs in Turkish, the percentage written %100', async () => {
    const { page } = app
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    await expect.poll(() => page.getByTestId('nav-search').textContent()).toContain('Arama')
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-7').click()
    await page.getByTestId('sync-start').click()
    const progress = page.getByTestId('sync-progress')
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    expect(await page.getByTestId('sync-progressbar').textContent()).toContain('%100')
    // Thousands with a dot: more than 999 calls in a demo week.
    expect(await page.getByTestId('sync-stored').textContent()).toMatch(/^\d{1,3}(\.\d{3})+$/)
    await expectNoEnglish(page, 'sync')
  })

  it('shows search, a call and its other fields in Turkish', async () => {
    const { page } = app
    await page.getByTestId('nav-search').click()
    const count = page.getByTestId('result-count')
    await expect.poll(() => count.getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
    await expectNoEnglish(page, 'search')

    // A single click opens the call.
    await page.getByTestId('row-0').click()
    await page.getByTestId('detail-extra').waitFor()
    const duration = page.locator('[data-testid="detail-extra"] tr[data-key="durationSeconds"]')
    expect(await duration.locator('th').textContent()).toBe('Süre (dk:sn)')
    expect(await duration.locator('td').textContent()).toMatch(/^\d+:\d{2}$/)
    expect(await page.locator('[data-testid="detail-extra"] tr[data-key="agentName"] th').textContent()).toBe('Temsilci')
    await expectNoEnglish(page, 'call detail')
    await app.screenshot('51-call-detail-tr')
    await page.keyboard.press('Escape')
  })

  it('opens a Turkish date picker: month names, Monday first, Bugün', async () => {
    const { page } = app
    await page.getByTestId('filter-date').click()
    const panel = page.locator('.p-datepicker-panel')
    await panel.waitFor()
    const now = new Date()
    expect(await panel.locator('.p-datepicker-select-month').textContent()).toBe(monthTr(now))
    const weekdays = await panel.locator('.p-datepicker-weekday').allTextContents()
    expect(weekdays.map((d) => d.trim())).toEqual(['Pzt', 'Sal', 'Çar', 'Per', 'Cum', 'Cmt', 'Paz'])
    expect(await panel.getByRole('button', { name: 'Bugün' }).count()).toBe(1)
    await expectNoEnglish(page, 'date picker')
    await app.screenshot('50-date-picker-tr')
    await page.keyboard.press('Escape')
  })

  it('shows Insight, Settings, the export dialog and the shortcuts in Turkish', async () => {
    const { page } = app
    await page.getByTestId('nav-insight').click()
    await page.getByTestId('insight-total').waitFor({ timeout: 15_000 })
    await expectNoEnglish(page, 'insight')

    await page.getByTestId('nav-settings').click()
    await page.getByTestId('settings-language').waitFor()
    await expectNoEnglish(page, 'settings')

    await page.getByTestId('nav-search').click()
    await page.getByTestId('export-open').click()
    await page.getByTestId('export-dialog').waitFor()
    await page.getByTestId('export-english-headers').waitFor()
    await expectNoEnglish(page, 'export dialog')
    await page.keyboard.press('Escape')
    await page.getByTestId('export-dialog').waitFor({ state: 'detached' })

    await page.keyboard.press('?')
    await page.locator('.p-dialog').waitFor()
    await expectNoEnglish(page, 'shortcuts')
    await page.keyboard.press('Escape')
    await page.locator('.p-dialog').waitFor({ state: 'detached' })
  })

  it('signs out to a Turkish sign-in screen whose browser-mode notice is Turkish, and back into the demo', async () => {
    const { page } = app
    await page.getByTestId('nav-settings').click()
    await page.getByTestId('sign-out').click()
    await page.getByTestId('signin-form').waitFor({ timeout: 20_000 })
    // The core sends this notice in English too; the screen must show the renderer's Turkish.
    const notice = page.getByTestId('signin-notice')
    expect(await notice.getAttribute('data-code')).toBe('browserMode')
    expect(await notice.textContent()).toContain(tr.signIn.notice.browserMode)
    await expectNoEnglish(page, 'sign-in')
    await app.screenshot('52-sign-in-notice-tr')
    await page.getByTestId('signin-demo').click()
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
  })

  it('switches the date picker to English with the language, at once', async () => {
    const { page } = app
    await page.getByTestId('nav-settings').click()
    await page.getByTestId('settings-language').getByText('English', { exact: true }).click()
    await expect.poll(() => page.getByTestId('nav-search').textContent()).toContain('Search')
    await page.getByTestId('nav-search').click()
    await page.getByTestId('filter-date').click()
    const panel = page.locator('.p-datepicker-panel')
    await panel.waitFor()
    expect(await panel.locator('.p-datepicker-select-month').textContent()).toBe(monthEn(new Date()))
    expect(await panel.getByRole('button', { name: 'Today' }).count()).toBe(1)
    await page.keyboard.press('Escape')
    expect(app.pageErrors).toEqual([])
  })
})
