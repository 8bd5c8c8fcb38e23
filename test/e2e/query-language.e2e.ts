import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Page } from 'playwright-core'
import { invokeInPage, launchApp, type LaunchedApp } from './support/harness'

// The search language on the demo's own data, in Chromium over `callsight serve --demo`: the
// help's examples are built from the account's keys, values and titles and each finds calls;
// operators in both languages; a field named by its friendly name; a value the key never has
// is named with the values there are; a pasted call ID opens the call; an invalid query
// empties the list.

/** Types a query and waits for its count; the total it shows. */
async function totalOf(page: Page, text: string): Promise<number> {
  await page.getByTestId('search-input').fill(text)
  const count = page.getByTestId('result-count')
  await expect.poll(() => count.getAttribute('data-query'), { timeout: 10_000 }).toBe(text.trim())
  await expect.poll(() => count.getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
  await expect.poll(async () => (await count.textContent())?.match(/\d/) !== null, { timeout: 15_000 }).toBe(true)
  return Number(await count.getAttribute('data-total'))
}

async function helpExamples(page: Page): Promise<string[]> {
  await page.getByTestId('query-help-open').click()
  const dialog = page.getByTestId('shortcuts-dialog')
  await dialog.waitFor()
  await dialog.getByTestId('query-example').first().waitFor({ timeout: 15_000 })
  return dialog.getByTestId('query-example').allTextContents()
}

describe('the search language on the tenant’s own keys', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('syncs a week of the demo', async () => {
    const { page } = app
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-7').click()
    await page.getByTestId('sync-start').click()
    await expect.poll(() => page.getByTestId('sync-progress').getAttribute('data-phase'), { timeout: 120_000 }).toBe('done')
    await page.getByTestId('nav-search').click()
    await page.getByTestId('mode-local').click()
  })

  it('every example of the help finds calls on the demo', async () => {
    const { page } = app
    const examples = await helpExamples(page)
    // Built from the demo's data: its sentiment key by friendly name, its values, a numeric key.
    expect(examples.some((e) => e.startsWith('"Duygu Durumu":') || e.startsWith('"Konu":') || e.includes(':'))).toBe(true)
    expect(examples.join(' ')).not.toContain('duygu:olumsuz')
    expect(examples.length).toBeGreaterThanOrEqual(10)
    await app.screenshot('70-query-help-en')
    await page.keyboard.press('Escape')
    for (const ex of examples) {
      if (/^[0-9a-f]{8}-/.test(ex)) continue
      const n = await totalOf(page, ex)
      expect({ ex, n, error: await page.getByTestId('query-error').count() }).toEqual({ ex, n: expect.any(Number), error: 0 })
      expect(n, ex).toBeGreaterThan(0)
    }
  })

  it('reads or/veya/| and değil/not as operators, and names fields by friendly name', async () => {
    const { page } = app
    const a = await totalOf(page, 'fatura')
    const b = await totalOf(page, 'iptal')
    const both = await totalOf(page, 'fatura iptal')
    const either = a + b - both
    expect(a).toBeGreaterThan(0)
    expect(b).toBeGreaterThan(0)
    for (const q of ['fatura veya iptal', 'fatura VEYA iptal', 'fatura or iptal', 'fatura | iptal'])
      expect(await totalOf(page, q), q).toBe(either)
    for (const q of ['fatura değil iptal', 'fatura DEĞİL iptal', 'fatura not iptal', 'fatura -iptal'])
      expect(await totalOf(page, q), q).toBe(a - both)
    expect(await totalOf(page, 'fatura ve iptal')).toBe(both)

    // Record fields the service sends beyond the spec's: agent and duration filter like keys, folded.
    const agent = await totalOf(page, 'agent:"GÖKHAN IŞIK"')
    expect(agent).toBeGreaterThan(0)
    expect(await totalOf(page, 'agent:"gokhan isik"')).toBe(agent)
    expect(await totalOf(page, 'fatura agent:"gökhan ışık"')).toBeLessThan(agent)
    const long = await totalOf(page, 'duration>=600')
    expect(long).toBeGreaterThan(0)
    expect(await totalOf(page, 'duration:0..599')).toBe((await totalOf(page, '')) - long)

    const negative = await totalOf(page, '"duygu durumu":negative')
    expect(negative).toBeGreaterThan(0)
    expect(await totalOf(page, 'sentiment:NEGATIVE')).toBe(negative)
    // The box suggests the key's values with their counts as the name is typed.
    await page.getByTestId('search-input').fill('"duygu durumu":')
    await expect
      .poll(() => page.locator('#query-suggestions option').evaluateAll((o) => o.map((x) => (x as HTMLOptionElement).value)), {
        timeout: 10_000
      })
      .toEqual(expect.arrayContaining(['"duygu durumu":Negative', '"duygu durumu":Positive']))
    await totalOf(page, 'sentiment:olumsuz')
    const warning = page.getByTestId('query-warning')
    await warning.waitFor({ timeout: 10_000 })
    expect(await warning.textContent()).toMatch(/olumsuz.*Duygu Durumu.*Negative/)
    await app.screenshot('71-query-value-warning-en')
  })

  it('an invalid query empties the list to its error', async () => {
    const { page } = app
    expect(await totalOf(page, 'fatura')).toBeGreaterThan(0)
    await page.getByTestId('row-0').waitFor()
    await page.getByTestId('search-input').fill('(fatura')
    await page.getByTestId('query-error').waitFor()
    await expect.poll(() => page.getByTestId('row-0').count(), { timeout: 5_000 }).toBe(0)
    expect(await page.getByTestId('result-count').getAttribute('data-total')).toBe('0')
  })

  it('a pasted call ID opens that call', async () => {
    const { page } = app
    await totalOf(page, 'iptal')
    await page.getByTestId('row-3').waitFor()
    await page.getByTestId('row-3').dblclick()
    const id = (await page.getByTestId('detail-call-id').textContent())!.trim()
    expect(id).toMatch(/^[0-9a-f]{8}-/)
    await page
      .getByTestId('detail-close')
      .click()
      .catch(() => page.keyboard.press('Escape'))
    await page.getByTestId('search-input').fill(`  ${id} `)
    await expect.poll(() => page.getByTestId('detail-call-id').textContent(), { timeout: 15_000 }).toBe(id)
    expect(await page.getByTestId('result-count').getAttribute('data-total')).toBe('1')
    await app.screenshot('72-call-id-lookup-en')
    expect(await totalOf(page, `id:${id}`)).toBe(1)
  })

  it('review mode shows the call’s fields, says each move, never skips a criterion, and says "failed"', async () => {
    const { page } = app
    await invokeInPage(page, 'scorecards.save', {
      definition: {
        name: 'Kalite formu',
        criteria: [
          { id: 'greet', name: 'Selamlama', weight: 1, scale: '1_5', critical: false },
          { id: 'empathy', name: 'Empati', weight: 1, scale: '1_5', critical: false },
          { id: 'kvkk', name: 'KVKK', weight: 1, scale: 'yes_no', critical: true }
        ]
      }
    })
    expect(await totalOf(page, 'fatura')).toBeGreaterThan(5)
    await page.getByTestId('nav-review').click()
    await page.getByTestId('review-list-name').fill('Fatura QA')
    await page.getByTestId('review-sample-kind').selectOption('perDay')
    await page.getByTestId('review-sample-value').fill('1')
    await page.getByTestId('review-create').click()
    await page.getByTestId('review-call').waitFor({ timeout: 15_000 })
    await expect.poll(() => page.getByTestId('review-position').textContent()).toMatch(/^Call 1 of/)
    // Agent, duration and language come from the record's extra fields.
    const fields = page.getByTestId('review-call-fields')
    await fields.waitFor()
    for (const f of ['agentName', 'durationSeconds', 'language']) expect(await fields.locator(`[data-field="${f}"]`).count(), f).toBe(1)
    expect(await fields.textContent()).toContain('Agent')

    const said = page.getByTestId('review-announcement')
    const criterion = (i: number) => page.getByTestId(`review-criterion-${i}`)
    // The reported sequence: 4, ↓, 5, ↓, 1.
    await page.keyboard.press('4')
    await expect.poll(() => said.textContent()).toContain('Next: Empati')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('5')
    await expect.poll(() => said.getAttribute('data-kind')).toBe('rejected')
    expect(await said.textContent()).toContain('5 is not an answer for KVKK')
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('1')
    // KVKK answered yes; the blank Empati is focused again, and said so.
    await expect.poll(() => said.textContent()).toContain('KVKK: 1 saved. Next: Empati')
    await expect.poll(() => criterion(1).getAttribute('class')).toContain('focused')
    await page.keyboard.press('3')
    await expect.poll(() => said.getAttribute('data-kind')).toBe('done')
    expect(await criterion(0).locator('.answer.active').textContent()).toContain('4')
    expect(await criterion(1).locator('.answer.active').textContent()).toContain('3')
    // A failed critical criterion says "failed", not only "Total 0".
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('0')
    await expect.poll(() => page.getByTestId('review-total').getAttribute('data-failed')).toBe('true')
    expect(await page.getByTestId('review-failed').textContent()).toContain('failed')
    await app.screenshot('75-review-mode-en')

    // Sidebar and header agree, and reopening the list starts at the next unreviewed call.
    await page.keyboard.press('r')
    await expect.poll(() => page.getByTestId('review-progress').textContent()).toMatch(/^1 of \d+ reviewed$/)
    const header = await page.getByTestId('review-progress').textContent()
    await expect.poll(() => page.getByTestId('review-list-Fatura QA').getByTestId('review-list-progress').textContent()).toBe(header)
    await page.getByTestId('review-list-Fatura QA').click()
    await expect.poll(() => page.getByTestId('review-position').textContent()).toMatch(/^Call 2 of/)
    await page.getByTestId('nav-search').click()
  })

  it('shows the help in Turkish from the same data', async () => {
    const { page } = app
    await page.getByTestId('nav-settings').click()
    await page.getByTestId('settings-language').getByText('Türkçe', { exact: true }).click()
    await page.getByTestId('nav-search').click()
    const examples = await helpExamples(page)
    expect(examples.length).toBeGreaterThanOrEqual(10)
    expect(await page.getByTestId('shortcuts-dialog').textContent()).toContain('Bu hesaptaki alanlar')
    await app.screenshot('73-query-help-tr')
    await page.keyboard.press('Escape')
    await totalOf(page, 'sentiment:olumsuz')
    await page.getByTestId('query-warning').waitFor({ timeout: 10_000 })
    expect(await page.getByTestId('query-warning').textContent()).toContain('için “olumsuz” diye bir değer yok')
    await app.screenshot('74-query-value-warning-tr')
    await page.getByTestId('nav-review').click()
    await page.getByTestId('review-list-Fatura QA').click()
    await page.getByTestId('review-call-fields').waitFor()
    expect(await page.getByTestId('review-call-fields').textContent()).toMatch(/Temsilci|Müşteri temsilcisi/)
    await app.screenshot('76-review-mode-tr')
  })

  it('ran without page errors', () => {
    expect(app.pageErrors).toEqual([])
  })
})
