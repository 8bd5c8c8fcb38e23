import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { SqliteViewReads } from '../../../../src/core/cache/read/view-reads'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery } from '../../../../src/shared/domain'
import { analyzeQuery, splitRecordTerms } from '../../../../src/shared/query'
import { buildFixture, type Fixture } from './fixture'
import { FIXTURE_KEYS } from './query-cases'

let fx: Fixture
let search: LocalSearch

beforeAll(() => {
  fx = buildFixture(400, 5, { extra: true })
  search = createSearch(fx.cache)
})
afterAll(() => fx.close())

const count = (text: string): number => search.count(SearchQuery.parse({ results: 'all', text }))
const brute = (test: (extra: Record<string, unknown>, summary: string) => boolean): number =>
  fx.records.filter((r) => test(r.extra, r.summary)).length

describe('record fields in the query language', () => {
  const FIELDS = ['agentName', 'durationSeconds', 'language']

  it('takes a top-level record term out of the text, keeping the other spans in place', () => {
    expect(splitRecordTerms('fatura agentname:"hakan çınar"', FIELDS, FIXTURE_KEYS)).toEqual({
      text: 'fatura                        ',
      terms: [{ kind: 'equals', field: 'agentName', value: 'hakan çınar' }]
    })
    expect(splitRecordTerms('duration>=60 duration<600', FIELDS, FIXTURE_KEYS).terms).toEqual([
      { kind: 'range', field: 'durationSeconds', min: 60, max: null },
      { kind: 'range', field: 'durationSeconds', min: null, max: 599 }
    ])
    // A key of the same name wins (the fixture's analysis key "agent"); OR keeps it a field term.
    expect(splitRecordTerms('agent:x', ['agent'], FIXTURE_KEYS).terms).toEqual([])
    expect(splitRecordTerms('language:tr-TR OR fatura', FIELDS, FIXTURE_KEYS).terms).toEqual([])
    expect(analyzeQuery('duration:60..300 fatura', { keys: FIXTURE_KEYS, recordFields: FIELDS }).errors).toEqual([])
    expect(analyzeQuery('duration:60..300 fatura', { keys: FIXTURE_KEYS }).errors[0]?.code).toBe('unknownField')
  })

  it('reads the fields a service sends only for a text with a field operator', () => {
    // Reading them samples the newest calls' extra: a word typed on a search just opened need not wait for it.
    const fields = vi.spyOn(SqliteViewReads.prototype, 'extraFields')
    try {
      const fresh = createSearch(fx.cache)
      fresh.page(SearchQuery.parse({ results: 'all', text: 'fatura' }), 0, 10)
      expect(fields).not.toHaveBeenCalled()
      const rows = fresh.page(SearchQuery.parse({ results: 'all', text: 'fatura language:tr-TR' }), 0, 500).rows
      expect(fields).toHaveBeenCalledTimes(1)
      expect(rows.length).toBeGreaterThan(0)
      for (const row of rows) expect(fx.records.find((r) => r.callId === row.callId)!.extra['language']).toBe('tr-TR')
    } finally {
      fields.mockRestore()
    }
  })

  it('filters by a record field, folded, alone and with text', () => {
    const hakan = brute((e) => e['agentName'] === 'Hakan Çınar')
    expect(hakan).toBeGreaterThan(0)
    // The fixture's analysis key "agent" keeps `agent:`; the record field is agentName.
    expect(count('AgentName:"HAKAN ÇINAR"')).toBe(hakan)
    expect(count('agentName:"hakan cinar"')).toBe(hakan)
    expect(count('language:tr-TR')).toBe(brute((e) => e['language'] === 'tr-TR'))
    expect(count('duration:100..400')).toBe(
      brute((e) => (e['durationSeconds'] as number) >= 100 && (e['durationSeconds'] as number) <= 400)
    )
    const withWord = search.page(SearchQuery.parse({ results: 'all', text: 'fatura agent_name:"ipek ışık"' }), 0, 500).rows
    expect(withWord.length).toBeGreaterThan(0)
    for (const row of withWord) expect(fx.records.find((r) => r.callId === row.callId)!.extra['agentName']).toBe('İpek Işık')
  })
})
