import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache } from '../../src/core/cache'
import { createSearch } from '../../src/core/search'
import { foldText } from '../../src/shared/text/fold'
import { SearchQuery, type ValueSuggestions } from '../../src/shared/domain'
import { buildQuery, emptyFilters } from '../../src/renderer/src/lib/query'
import { join } from 'node:path'
import { syncDemoWeek } from './support/demo-week'
import { launchApp, pickOption, type LaunchedApp } from './support/harness'

// Search as the analyst types: no search button, a query per keystroke, replies to text typed
// over dropped. Counts are checked against core's answer on the same cache file, highlights in
// the rows and in the detail's analysis table. How soon the rows are painted is measured by
// the browser bench (bench/browser/as-you-type-paint.e2e.ts, `npm run bench:browser`), not here.

/** What core answers for the text the app's bar holds, with the bar's other filters as they start. */
function coreCount(dataDir: string, text: string): number {
  const cache = openCache(join(dataDir, 'accounts', 'demo.sqlite'), { readonly: true })
  try {
    return createSearch(cache).count(SearchQuery.parse(buildQuery({ ...emptyFilters(), text })))
  } finally {
    cache.close()
  }
}

/** Types text key by key (as a person does, faster than any debounce) and waits for its count. */
async function typeQuery(page: Page, text: string): Promise<number> {
  const input = page.getByTestId('search-input')
  await input.fill('')
  await input.pressSequentially(text, { delay: 15 })
  const count = page.getByTestId('result-count')
  await expect.poll(() => count.getAttribute('data-query'), { timeout: 15_000 }).toBe(text)
  await expect.poll(() => count.getAttribute('data-state'), { timeout: 30_000 }).toBe('ready')
  return Number(await count.getAttribute('data-total'))
}

describe('as-you-type search on the demo week', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('has no search button: the results follow the text as it is typed', async () => {
    const { page } = app
    await syncDemoWeek(page)
    await page.getByTestId('nav-search').click()
    await page.getByTestId('mode-local').click()
    expect(await page.getByRole('button', { name: /^(search|ara)$/i }).count()).toBe(0)
    // Every query the results were asked for while the word was typed, as the count shows it.
    await page.evaluate(() => {
      const seen: string[] = []
      const el = document.querySelector('[data-testid="result-count"]')!
      new MutationObserver(() => seen.push(el.getAttribute('data-query') ?? '')).observe(el, { attributes: true })
      ;(globalThis as unknown as { seenQueries: string[] }).seenQueries = seen
    })
    const total = await typeQuery(page, 'fatura')
    expect(total).toBe(coreCount(app.serve.dataDir, 'fatura'))
    const seen = await page.evaluate(() => (globalThis as unknown as { seenQueries: string[] }).seenQueries)
    // Not only the whole word once typing paused: the prefixes on the way ran too.
    expect(new Set(seen.filter((q) => q.length > 0 && q.length < 'fatura'.length)).size).toBeGreaterThanOrEqual(3)
  })

  it('"fatura OR iptal -itiraz": core\'s count, hits of either word, the minus honoured', async () => {
    const { page } = app
    const text = 'fatura OR iptal -itiraz'
    const total = await typeQuery(page, text)
    const dir = app.serve.dataDir
    expect(total).toBeGreaterThan(0)
    expect(total).toBe(coreCount(dir, text))
    // OR binds loosest (docs/search.md): fatura, or iptal without itiraz. The minus excludes.
    expect(total).toBe(coreCount(dir, 'fatura') + coreCount(dir, 'iptal -itiraz -fatura'))
    expect(total).toBeLessThan(coreCount(dir, 'fatura OR iptal'))
    await page.getByTestId('row-0').locator('mark.hit').first().waitFor()
    const hits = await page.locator('.results-row mark.hit').allTextContents()
    expect(hits.length).toBeGreaterThan(0)
    expect(hits.every((h) => /^(fatura|iptal)/.test(foldText(h)))).toBe(true)
    // A row shown for iptal alone (no fatura visible, not found through an analysis value) has no itiraz.
    const rows = (await page.locator('.results-row').evaluateAll((els) => els.map((e) => e.textContent ?? ''))).map(foldText)
    expect(rows.length).toBeGreaterThan(0)
    const byIptal = rows.filter((r) => !r.includes('fatura') && !r.includes('matched in'))
    expect(byIptal.filter((r) => r.includes('itiraz'))).toEqual([])
    await app.screenshot('60-as-you-type-or-not')
  })

  it('a field query: core\'s count, "matched in" on the row, the value marked in the detail', async () => {
    const { page } = app
    const text = 'duygu_durumu:negative'
    const total = await typeQuery(page, text)
    expect(total).toBeGreaterThan(0)
    expect(total).toBe(coreCount(app.serve.dataDir, text))
    const matchedIn = page.getByTestId('row-0').getByTestId('row-matched-in')
    await matchedIn.waitFor()
    expect(await matchedIn.textContent()).toContain('Duygu Durumu')
    await page.getByTestId('row-0').dblclick()
    const detail = page.getByTestId('detail-analysis')
    await detail.waitFor()
    const marked = detail.locator('td[data-matched]')
    expect(await marked.count()).toBe(1)
    expect(await marked.locator('mark.hit').allTextContents()).toEqual(['Negative'])
    await app.screenshot('61-as-you-type-field')
    await page.getByTestId('detail-close').click()
  })

  it("a numeric comparison typed key by key ends on core's count", async () => {
    const total = await typeQuery(app.page, 'müşteri_eforu>=4')
    expect(total).toBeGreaterThan(0)
    expect(total).toBe(coreCount(app.serve.dataDir, 'müşteri_eforu>=4'))
  })

  it('the value box suggests the values of the shown results with counts; a numeric key its range', async () => {
    const { page } = app
    await typeQuery(page, 'fatura')
    const dir = app.serve.dataDir
    const cache = openCache(join(dir, 'accounts', 'demo.sqlite'), { readonly: true })
    const base = SearchQuery.parse(buildQuery({ ...emptyFilters(), text: 'fatura' }))
    let sentiment: ValueSuggestions, effort: ValueSuggestions
    try {
      const search = createSearch(cache)
      sentiment = search.values(base, 'sentiment')
      effort = search.values(base, 'customerEffort')
    } finally {
      cache.close()
    }
    expect(sentiment.values.length).toBeGreaterThan(1)
    await page.getByTestId('analysis-add').click()
    await page.getByTestId('analysis-key-0').click()
    await pickOption(page, 'Duygu Durumu (sentiment)')
    await page.getByTestId('analysis-value-0').focus()
    const options = page.getByTestId('analysis-suggestion-0')
    await expect.poll(() => options.count(), { timeout: 10_000 }).toBe(sentiment.values.length)
    const shown = (await options.allTextContents()).map((s) => s.replace(/\s+/g, ' ').trim())
    expect(shown).toEqual(sentiment.values.map((v) => `${v.value}${v.count.toLocaleString('en-US')} items`))
    // Typing narrows the list (folded like equals); the keyboard picks.
    await page.getByTestId('analysis-value-0').pressSequentially('neg')
    await expect.poll(() => options.allTextContents(), { timeout: 10_000 }).toHaveLength(1)
    await page.keyboard.press('ArrowDown')
    await page.keyboard.press('Enter')
    const negative = sentiment.values.find((v) => v.value === 'Negative')!
    await expect.poll(() => page.getByTestId('analysis-value-0').inputValue()).toBe('Negative')
    await expect.poll(() => page.getByTestId('result-count').getAttribute('data-total'), { timeout: 15_000 }).toBe(String(negative.count))
    await app.screenshot('62-value-suggestions')

    await page.getByTestId('analysis-key-0').click()
    await pickOption(page, 'Müşteri Eforu (customerEffort)')
    const useRange = page.getByTestId('analysis-range-0')
    await useRange.waitFor({ timeout: 10_000 })
    expect(await useRange.textContent()).toContain(`${effort.range!.min} – ${effort.range!.max}`)
    await useRange.press('Enter')
    await expect.poll(() => page.getByTestId('analysis-min-0').inputValue()).toBe(String(effort.range!.min))
    expect(await page.getByTestId('analysis-max-0').inputValue()).toBe(String(effort.range!.max))
  })

  it('ran without page errors', () => {
    expect(app.pageErrors).toEqual([])
  })
})
