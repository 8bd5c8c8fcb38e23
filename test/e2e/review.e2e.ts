import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchApp, SCREENSHOT_DIR, type LaunchedApp, invokeInPage } from './support/harness'

// Review (annotations, scorecards, review lists) in Chromium over `callsight serve --demo`: a sampled list built from a
// search, five calls reviewed with the keyboard alone (score, tag, note, reviewed, one undo),
// progress and the score chart in Insight, the list exported to XLSX and its scorecard sheet
// read back; review mode in English and Turkish.

const invoke = invokeInPage

describe('review mode', () => {
  let app: LaunchedApp
  const shownMs: number[] = []
  /** The calls reviewed with the keyboard, in order. */
  const reviewed: string[] = []

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('syncs the demo and defines a scorecard', async () => {
    const { page } = app
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-7').click()
    await page.getByTestId('sync-start').click()
    await expect.poll(() => page.getByTestId('sync-progress').getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    await invoke(page, 'scorecards.save', {
      definition: {
        name: 'Kalite formu',
        criteria: [
          { id: 'greet', name: 'Selamlama', weight: 1, scale: '1_5', critical: false },
          { id: 'kvkk', name: 'KVKK', weight: 1, scale: 'yes_no', critical: true }
        ]
      }
    })
  })

  it('builds a sampled list from a search and reviews five calls with the keyboard alone', async () => {
    const { page } = app
    await page.getByTestId('nav-search').click()
    await page.getByTestId('search-input').fill('fatura')
    const count = page.getByTestId('result-count')
    await expect.poll(() => count.getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
    const total = Number(await count.getAttribute('data-total'))
    expect(total).toBeGreaterThan(20)

    await page.getByTestId('nav-review').click()
    await page.getByTestId('review-list-name').fill('Fatura QA')
    await page.getByTestId('review-sample-kind').selectOption('perDay')
    await page.getByTestId('review-sample-value').fill('1')
    await page.getByTestId('review-create').click()
    const call = page.getByTestId('review-call')
    await call.waitFor({ timeout: 15_000 })
    const size = Number((await page.getByTestId('review-position').textContent())?.match(/of (\d+)/)?.[1])
    expect(size).toBeGreaterThanOrEqual(5)
    expect(size).toBeLessThanOrEqual(9)
    const focusedId = () => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null)

    const keys = (k: string) => page.keyboard.press(k)
    const seen: string[] = []
    for (let i = 0; i < 5; i++) {
      const id = await call.getAttribute('data-call-id')
      seen.push(id!)
      await keys(String(3 + (i % 3))) // Selamlama: 3, 4, 5
      await keys('1') // KVKK: yes
      await expect.poll(() => page.getByTestId('review-total').textContent()).toMatch(/\d/)
      await keys('t')
      await expect.poll(focusedId).toBe('review-tag-input')
      await page.keyboard.type(i % 2 === 0 ? 'iade' : 'şikayet')
      await keys('Enter')
      await keys('Escape')
      await keys('n')
      await expect.poll(focusedId).toBe('review-note')
      await page.keyboard.type(`Not ${i + 1}: müşteri 0532 123 45 67 aradı`)
      await keys('Escape')
      await expect.poll(() => page.getByTestId('review-tags').textContent()).toContain(i % 2 === 0 ? 'iade' : 'şikayet')
      await keys('r')
      await expect.poll(() => page.getByTestId('review-status-reviewed').getAttribute('aria-pressed')).toBe('true')
      if (i === 4) {
        // Undo once: the last call goes back from reviewed.
        await keys('z')
        await expect.poll(() => page.getByTestId('review-status-reviewed').getAttribute('aria-pressed')).toBe('false')
      } else {
        await keys('j')
        await expect.poll(() => call.getAttribute('data-call-id')).not.toBe(id)
        shownMs.push(Number(await call.getAttribute('data-shown-ms')))
      }
    }
    expect(new Set(seen).size).toBe(5)
    reviewed.push(...seen)
    await expect.poll(() => page.getByTestId('review-progress').textContent()).toBe(`4 of ${size} reviewed`)
    // The note was masked before it was stored.
    const saved = await invoke<{ note: string; tags: string[]; score: { total: number } }>(page, 'annotations.get', { callId: seen[0] })
    expect(saved.note).toBe('Not 1: müşteri [MASKED] aradı')
    expect(saved.tags).toEqual(['iade'])
    expect(saved.score.total).toBe(75)
    // Next unreviewed from the last call: the fifth (undone), since the first four are reviewed.
    await keys('k')
    await keys('u')
    await expect.poll(() => call.getAttribute('data-call-id')).toBe(seen[4])
    await app.screenshot('60-review-mode-en')
    writeFileSync(join(SCREENSHOT_DIR, 'review-next-call-ms.json'), JSON.stringify({ shownMs }))
  })

  it('shows the list progress and the score chart in Insight', async () => {
    const { page } = app
    await page.getByTestId('nav-insight').click()
    const progress = page.getByTestId('review-insight-progress')
    await progress.waitFor({ timeout: 15_000 })
    expect(await progress.textContent()).toContain('Fatura QA')
    expect(await progress.textContent()).toMatch(/4 of \d+ reviewed/)
    expect(await page.getByTestId('review-insight-scores').getAttribute('data-scored')).toBe('5')
    expect(await page.getByTestId('review-insight-scores').locator('canvas').count()).toBeGreaterThan(0)
    expect(await page.getByTestId('review-insight-tags').textContent()).toContain('şikayet')
  })

  it('filters the search by tag and status from the Search screen, and shows the review columns', async () => {
    const { page } = app
    await page.getByTestId('nav-search').click()
    const count = page.getByTestId('result-count')
    const total = async () => {
      await expect.poll(() => count.getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
      return Number(await count.getAttribute('data-total'))
    }
    expect(await total()).toBeGreaterThan(20)
    // Keyboard: the toggle, then the tag field (known tags offered), Enter adds the tag.
    await page.getByTestId('review-filters-toggle').focus()
    await page.keyboard.press('Enter')
    await page.getByTestId('review-filter-tag-input').focus()
    await page.keyboard.type('iade')
    await page.keyboard.press('Enter')
    await expect.poll(() => page.getByTestId('review-filter-tag').count()).toBe(1)
    // Calls 1, 3 and 5 of the review were tagged "iade" (all found by "fatura").
    await expect.poll(total, { timeout: 15_000 }).toBe(3)
    await page.getByTestId('review-filter-status').click()
    await page.getByRole('option', { name: 'Reviewed', exact: true }).click()
    await page.keyboard.press('Escape')
    // The fifth call's "reviewed" was undone.
    await expect.poll(total, { timeout: 15_000 }).toBe(2)
    expect(await page.getByTestId('review-filters-toggle').textContent()).toContain('Review (2)')
    // The service still returns every demo call: "no longer returned" finds none, "still returned" all.
    const dropped = async (name: string) => {
      await page.getByTestId('review-filter-dropped').click()
      await page.getByRole('option', { name, exact: true }).click()
    }
    await dropped('No longer returned by the service')
    await expect.poll(total, { timeout: 15_000 }).toBe(0)
    expect(await page.getByTestId('review-filters-toggle').textContent()).toContain('Review (3)')
    await dropped('Still returned by the service')
    await expect.poll(total, { timeout: 15_000 }).toBe(2)

    await page.getByTestId('column-chooser').click()
    for (const name of ['Status', 'Tags', 'Score']) await page.getByRole('option', { name, exact: true }).click()
    await page.keyboard.press('Escape')
    const cell = (i: number, column: string) => page.getByTestId(`row-${i}`).locator(`[data-col="${column}"]`).textContent()
    await expect.poll(() => cell(0, 'review:status'), { timeout: 10_000 }).toBe('Reviewed')
    expect(await cell(1, 'review:tags')).toBe('iade')
    expect(Number(await cell(0, 'review:score'))).toBeGreaterThan(0)
    await app.screenshot('62-review-filters-en')
    await page.getByTestId('review-filter-clear').click()
    await expect.poll(total, { timeout: 15_000 }).toBeGreaterThan(20)
  })

  it('exports the list to XLSX with a sheet for the scorecard', async () => {
    const { page } = app
    await page.getByTestId('nav-review').click()
    await page.getByTestId('review-list-Fatura QA').click()
    await page.getByTestId('review-export').click()
    const dialog = page.getByTestId('export-dialog')
    await dialog.waitFor()
    await dialog.getByTestId('export-format').getByText('XLSX', { exact: true }).click()
    const review = dialog.getByTestId('export-col-review')
    if (!(await review.locator('input').isChecked())) await review.click()
    const downloading = page.waitForEvent('download', { timeout: 30_000 })
    await dialog.getByTestId('export-start').click()
    const download = await downloading
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(readFileSync(await download.path()) as unknown as ArrayBuffer)
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Calls', 'Kalite formu', 'Export'])
    const sheet = wb.getWorksheet('Kalite formu')!
    const rows = sheet
      .getSheetValues()
      .slice(1)
      .map((r) => (r as unknown[]).slice(1))
    expect(rows[0]).toEqual(['Call ID', expect.stringMatching(/^Call date/), 'Version', 'Total', 'Critical failed', 'Selamlama', 'KVKK'])
    expect(rows.length - 1).toBe(5)
    expect(rows.slice(1).map((r) => r[6])).toEqual([1, 1, 1, 1, 1])
    const calls = wb.getWorksheet('Calls')!
    const header = (calls.getRow(1).values as unknown[]).slice(1)
    expect(header).toContain('Review status')
  })

  it('edits the scorecard in Settings: a change saves a new version, the old one kept', async () => {
    const { page } = app
    await page.getByTestId('nav-settings').click()
    const panel = page.getByTestId('settings-scorecards')
    await panel.getByRole('button', { name: 'Kalite formu', exact: true }).click()
    await expect.poll(() => page.getByTestId('scorecard-name').inputValue()).toBe('Kalite formu')
    await page.getByTestId('criterion-name-0').fill('Selamlama ve karşılama')
    await page.getByTestId('criterion-add').click()
    await page.getByTestId('criterion-name-2').fill('Kapanış')
    await page.getByTestId('criterion-scale-2').selectOption('0_10')
    await page.getByTestId('scorecard-save').click()
    type Card = { id: string; name: string; version: number; criteria: Array<{ name: string; scale: string }> }
    const latest = async () => (await invoke<Card[]>(page, 'scorecards.list', {})).find((c) => c.name === 'Kalite formu')
    await expect.poll(async () => (await latest())?.version, { timeout: 10_000 }).toBe(2)
    const card = (await latest())!
    expect(card.criteria.map((c) => [c.name, c.scale])).toEqual([
      ['Selamlama ve karşılama', '1_5'],
      ['KVKK', 'yes_no'],
      ['Kapanış', '0_10']
    ])
    // The calls scored before keep the version they answered.
    const scores = await invoke<{ score: { version: number } }>(page, 'annotations.get', { callId: reviewed[0]! })
    expect(scores.score.version).toBe(1)
  })

  it('shows review mode in Turkish', async () => {
    const { page } = app
    await invoke(page, 'settings.update', { language: 'tr' })
    await page.reload()
    await page.getByTestId('nav-review').waitFor({ timeout: 20_000 })
    await page.getByTestId('nav-review').click()
    await page.getByTestId('review-list-Fatura QA').click()
    await page.getByTestId('review-call').waitFor()
    await expect.poll(() => page.getByTestId('review-progress').textContent()).toMatch(/çağrının 4 tanesi incelendi/)
    expect(await page.getByTestId('review-status-follow_up').textContent()).toContain('Takip gerekli')
    await app.screenshot('61-review-mode-tr')
  })

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
