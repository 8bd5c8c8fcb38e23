import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { remoteSearch } from '../../../src/core/client/remote-search'
import { createSearch, type LocalSearch } from '../../../src/core/search'
import { SearchQuery, type CallRecord, type QueryCoverage, type SearchQueryInput, type SearchSort } from '../../../src/shared/domain'
import { foldText } from '../../../src/shared/text/fold'
import { DEFAULT_CATALOG } from '../../../src/reference-service/config'
import { FROM_MS, startEnv, TO_MS, type SyncEnv } from './helpers'

// The promise of the cache: for one query, the local answer is the service's (same calls,
// same order) wherever synced scopes cover it, and says plainly what it lacks where they
// do not. Scopes are synced from the reference service with its catalog, whose Values are
// English and Descriptions Turkish; a dense second checks the order of calls that share one.

const HOUR = 3_600_000
const MID = FROM_MS + 6 * HOUR
let env: SyncEnv
let search: LocalSearch

const SCOPES = [
  // A call type synced by its Description.
  { callTypes: ['Şikayet'], from: FROM_MS, to: TO_MS },
  // A direction over the first half only.
  { direction: 1, from: FROM_MS, to: MID },
  // Two types, by Description in capitals, over the second half.
  { callTypes: ['İADE TALEBİ', 'Satış'], from: MID, to: TO_MS },
  // Every result, any type.
  { results: 'all' as const, from: FROM_MS, to: TO_MS },
  // The first type again, with analysis, over the first half only.
  { callTypes: ['Şikayet'], from: FROM_MS, to: MID, includeAnalysis: true }
]

beforeAll(async () => {
  env = await startEnv({ calls: 4000, seed: 23, denseSeconds: [{ at: '2026-01-05T09:30:00Z', count: 60 }] })
  env.cache.importCallTypes(DEFAULT_CATALOG.map((t) => ({ value: t.Value, description: t.Description })))
  for (const s of SCOPES) {
    const final = await env.engine.run({ includeAnalysis: false, ...s }, { mode: 'full' })
    expect(final.phase, JSON.stringify(s)).toBe('done')
  }
  search = createSearch(env.cache)
}, 180_000)

afterAll(async () => {
  await env?.close()
})

function localIds(q: SearchQuery): string[] {
  const out: string[] = []
  for (;;) {
    const rows = search.page(q, out.length, 1000).rows
    out.push(...rows.map((r) => r.callId))
    if (rows.length < 1000) return out
  }
}

async function remoteRecords(q: SearchQuery, includeAnalysis: boolean): Promise<CallRecord[]> {
  const out: CallRecord[] = []
  for (;;) {
    const page = await remoteSearch(env.session, q, out.length, 500, includeAnalysis)
    out.push(...page.records)
    if (page.exhausted || page.records.length === 0) return out
  }
}

async function remoteIds(q: SearchQuery): Promise<string[]> {
  return (await remoteRecords(q, false)).map((r) => r.callId)
}

/** [from, to) less the query's missing ranges: where the local answer must be the service's. */
function coveredParts(c: QueryCoverage): Array<[number, number]> {
  const cuts = c.missing.map((g) => [g.from!, g.to!] as const).sort((a, b) => a[0] - b[0])
  const out: Array<[number, number]> = []
  let at = c.from!
  for (const [a, b] of cuts) {
    if (a > at) out.push([at, a])
    at = Math.max(at, b)
  }
  if (at < c.to!) out.push([at, c.to!])
  return out
}

type Want = 'covered' | { missing: Array<{ callTypes?: string[]; direction?: number | null; results?: unknown; from: number; to: number }> }

const CASES: Array<[string, SearchQueryInput, Want]> = [
  ['every result, whole range', { results: 'all' }, 'covered'],
  ['every result, a sub-range', { results: 'all', from: FROM_MS + HOUR, to: FROM_MS + 3 * HOUR + 1000 }, 'covered'],
  [
    'the dense second alone',
    { results: 'all', from: Date.parse('2026-01-05T09:30:00Z'), to: Date.parse('2026-01-05T09:30:01Z') },
    'covered'
  ],
  ['a type by its Value', { callTypes: ['Complaint'] }, 'covered'],
  ['a type by its Description in capitals', { callTypes: ['ŞİKAYET'] }, 'covered'],
  ['a type by its Description in lower case, a sub-range', { callTypes: ['şikayet'], from: MID - HOUR, to: MID + HOUR }, 'covered'],
  ['a direction where synced', { direction: 1, to: MID }, 'covered'],
  ['type ∩ direction on their common coverage', { callTypes: ['Complaint'], direction: 1, from: FROM_MS, to: MID }, 'covered'],
  ['two types synced together, by Value', { callTypes: ['Refund', 'Sales'], from: MID, to: TO_MS }, 'covered'],
  ['three types: two scopes together', { callTypes: ['Refund', 'Sales', 'Complaint'], from: MID, to: TO_MS }, 'covered'],
  [
    'type ∩ direction past the direction scope',
    { callTypes: ['Complaint'], direction: 1, from: FROM_MS, to: TO_MS },
    { missing: [{ callTypes: ['Complaint'], direction: 1, from: MID, to: TO_MS }] }
  ],
  [
    'two types over the whole range',
    { callTypes: ['Refund', 'Sales'], from: FROM_MS, to: TO_MS },
    { missing: [{ callTypes: ['Refund', 'Sales'], from: FROM_MS, to: MID }] }
  ],
  [
    'a type no scope answers alone',
    { callTypes: ['Refund'], from: FROM_MS, to: TO_MS },
    { missing: [{ callTypes: ['Refund'], from: FROM_MS, to: TO_MS }] }
  ],
  ['answered only, any type: no scope holds it', { from: FROM_MS, to: MID }, { missing: [{ results: 'answered', from: FROM_MS, to: MID }] }]
]

describe('local answers against the reference service', () => {
  for (const sort of ['date_desc', 'date_asc'] satisfies SearchSort[]) {
    for (const [name, input, want] of CASES) {
      it(`${name} (${sort})`, async () => {
        const q = SearchQuery.parse({ from: FROM_MS, to: TO_MS, ...input, sort })
        const coverage = search.coverage(q)
        const local = localIds(q)
        const remote = await remoteIds(q)
        expect(remote.length).toBeGreaterThan(0)
        if (want === 'covered') {
          expect(coverage).toMatchObject({ complete: true, missing: [] })
          expect(local).toEqual(remote)
          return
        }
        expect(coverage.complete).toBe(false)
        expect(coverage.missing).toEqual(want.missing.map((m) => expect.objectContaining(m)))
        // Never a call the service would not give, and exactly the service's answer where covered.
        const remoteSet = new Set(remote)
        expect(local.every((id) => remoteSet.has(id))).toBe(true)
        for (const [from, to] of coveredParts(coverage)) {
          const part = SearchQuery.parse({ ...q, from, to })
          expect(localIds(part)).toEqual(await remoteIds(part))
        }
      })
    }
  }

  it('an analysis filter is covered only where a scope was synced with analysis, and exact there', async () => {
    // The service has no analysis filter: its answer is its records, with analysis, filtered here.
    const whole = SearchQuery.parse({ from: FROM_MS, to: TO_MS, callTypes: ['Complaint'] })
    const records = await remoteRecords(whole, true)
    const item = records.flatMap((r) => r.analysis).find((a) => a.value.trim() !== '')!
    const has = (r: CallRecord): boolean => r.analysis.some((a) => a.key === item.key && foldText(a.value) === foldText(item.value))
    const q = SearchQuery.parse({ ...whole, analysis: [{ kind: 'equals', key: item.key, value: item.value }] })
    const coverage = search.coverage(q)
    expect(coverage).toMatchObject({
      complete: false,
      missing: [{ callTypes: ['Complaint'], analysis: true, from: MID, to: TO_MS }]
    })
    const inRange = (from: number, to: number) => records.filter((r) => r.callAt >= from && r.callAt < to && has(r)).map((r) => r.callId)
    // Covered: the service's answer, in its order.
    expect(localIds(SearchQuery.parse({ ...q, to: MID }))).toEqual(inRange(FROM_MS, MID))
    // Not covered: the service has such calls the cache cannot find (stored without analysis).
    const missed = inRange(MID, TO_MS)
    expect(missed.length).toBeGreaterThan(0)
    expect(localIds(SearchQuery.parse({ ...q, from: MID })).length).toBeLessThan(missed.length)
    // The same filter written as a term on the key reads analysis just as much.
    expect(search.coverage(SearchQuery.parse({ ...whole, text: `${item.key}:"${item.value}"` })).missing).toEqual(coverage.missing)
  })

  it('refuses an unknown type locally as the service does, naming the known ones', async () => {
    const q = SearchQuery.parse({ from: FROM_MS, to: TO_MS, callTypes: ['Kargo'] })
    expect(() => search.page(q, 0, 10)).toThrow(
      expect.objectContaining({
        code: 'UnknownCallType',
        callType: 'Kargo',
        knownCallTypes: expect.arrayContaining(['Complaint', 'Refund'])
      })
    )
    expect(() => search.coverage(q)).toThrow(expect.objectContaining({ code: 'UnknownCallType' }))
    await expect(remoteSearch(env.session, q, 0, 10, false)).rejects.toMatchObject({ code: 'UnknownCallType', callType: 'Kargo' })
  })
})
