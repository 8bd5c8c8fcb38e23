import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseNumeric } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'
import { analyzeQuery, CallText, evaluate } from '../../../../src/shared/query'
import { buildFixture, type Fixture } from './fixture'
import { FIXTURE_KEYS, LANGUAGE_CASES } from './query-cases'

let fx: Fixture
let search: LocalSearch
let stored: Array<{ record: CallRecord; text: CallText }>

beforeAll(() => {
  fx = buildFixture(1500, 17)
  search = createSearch(fx.cache)
  stored = fx.records.map((r) => fx.cache.getCall(r.callId)!).map((record) => ({ record, text: new CallText(record) }))
})
afterAll(() => fx.close())

/** Brute force: the syntax tree evaluated on every stored call, newest first. */
function brute(text: string): string[] {
  const { node, errors } = analyzeQuery(text, { keys: FIXTURE_KEYS })
  expect(errors).toEqual([])
  return stored
    .filter((s) => node === null || evaluate(node, s.text, parseNumeric))
    .map((s) => s.record)
    .sort((a, b) => b.callAt - a.callAt || (a.callId < b.callId ? 1 : a.callId > b.callId ? -1 : 0))
    .map((r) => r.callId)
}

function all(q: SearchQuery): string[] {
  const out: string[] = []
  for (let offset = 0; ; offset += 500) {
    const rows = search.page(q, offset, 500).rows
    out.push(...rows.map((r) => r.callId))
    if (rows.length < 500) return out
  }
}

describe('the query language: local search against the syntax tree evaluated in memory', () => {
  it('the catalog resolves the fixture keys as the test does', () => {
    expect(search.analysisKeys().map((k) => ({ key: k.key, friendlyName: k.friendlyName, numeric: k.numeric }))).toEqual(
      expect.arrayContaining(FIXTURE_KEYS)
    )
  })

  it.each(LANGUAGE_CASES)('%s: %s', (_label, text) => {
    const want = brute(text)
    const q = SearchQuery.parse({ results: 'all', text })
    expect(all(q)).toEqual(want)
    expect(search.count(q)).toBe(want.length)
    // Some cases must find something and leave something out, or they prove little.
    if (!/^-|NOT/.test(text)) expect(want.length).toBeGreaterThan(0)
    expect(want.length).toBeLessThan(fx.records.length)
    // Relevance order holds the same calls.
    expect(new Set(all(SearchQuery.parse({ results: 'all', text, sort: 'relevance' })))).toEqual(new Set(want))
    // Facets count the same total.
    expect(search.facets(q, 'sentiment', 'UTC').total).toBe(want.length)
  })

  it('excluding a word is not including it (the bug this language fixes)', () => {
    const withWord = brute('fatura iade')
    const without = brute('fatura -iade')
    expect(withWord.filter((id) => without.includes(id))).toEqual([])
    expect(search.count(SearchQuery.parse({ results: 'all', text: 'fatura OR iade' }))).toBe(
      new Set([...brute('fatura'), ...brute('iade')]).size
    )
  })

  it('says which analysis key each row was found through, and nothing for title words or negations', () => {
    const rows = (text: string) => search.page(SearchQuery.parse({ text }), 0, 200).rows
    const byValue = rows('duygu:olumsuz')
    expect(byValue.length).toBeGreaterThan(0)
    for (const r of byValue) expect(r.matchedIn).toEqual(['Duygu'])
    for (const r of rows('skor>=95')) expect(r.matchedIn).toEqual(['Skor'])
    // A word found in an analysis value names its key; found only in the title, nothing.
    const word = rows('olumsuz')
    expect(word.every((r) => r.matchedIn?.includes('Duygu'))).toBe(true)
    for (const r of rows('title:fatura')) expect(r.matchedIn).toBeUndefined()
    for (const r of rows('fatura -duygu:olumsuz')) expect(r.matchedIn ?? []).not.toContain('Duygu')
  })

  it('finds a call by its ID, pasted whole or as id:, under any sort and filter', () => {
    const target = fx.records[fx.records.length >> 1]!
    for (const text of [`id:${target.callId}`, `id:"${target.callId}"`, ` ID:${target.callId} `]) {
      for (const sort of ['date_desc', 'relevance'] as const) {
        const q = SearchQuery.parse({ results: 'all', text, sort })
        expect(all(q)).toEqual([target.callId])
        expect(search.count(q)).toBe(1)
      }
    }
    expect(search.count(SearchQuery.parse({ results: 'all', text: 'id:no-such-call' }))).toBe(0)
  })
})
