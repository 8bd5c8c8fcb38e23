/**
 * The filter queries the membership passes must answer exactly as the service does, and the
 * two ways of asking for their answers: the local search over a cache, and the service itself.
 * Shared by the test against a workstation's own cache and the one through the team cache.
 */
import { expect } from 'vitest'
import { remoteSearch } from '../../../src/core/client/remote-search'
import type { LocalSearch } from '../../../src/core/search'
import type { Session } from '../../../src/core/session'
import { SearchQuery, type CallRecord, type SearchQueryInput } from '../../../src/shared/domain'
import { DEFAULT_CATALOG } from '../../../src/reference-service/config'
import { FROM_MS } from './helpers'

const HOUR = 3_600_000

const cased = (s: string, i: number): string => (i % 3 === 0 ? s.toLocaleUpperCase('tr') : i % 3 === 1 ? s.toLocaleLowerCase('tr') : s)

/** Every filter kind the passes learn and pairs of them; call types by Value and by Description in any case. */
export const MEMBERSHIP_QUERIES: Array<[string, SearchQueryInput]> = [
  ['answered only (the default)', {}],
  ['every result', { results: 'all' }],
  ['new requests', { hasNewRequest: true, results: 'all' }],
  ['new requests, answered', { hasNewRequest: true }],
  ['direction 1', { direction: 1, results: 'all' }],
  ['direction 2', { direction: 2, results: 'all' }],
  ['direction 1, answered', { direction: 1 }],
  ['direction 2, new requests', { direction: 2, hasNewRequest: true, results: 'all' }],
  ...DEFAULT_CATALOG.map((t): [string, SearchQueryInput] => [`type ${t.Value} by Value`, { callTypes: [t.Value], results: 'all' }]),
  ...DEFAULT_CATALOG.map((t, i): [string, SearchQueryInput] => [
    `type ${t.Value} by Description "${cased(t.Description, i)}", answered`,
    { callTypes: [cased(t.Description, i)] }
  ]),
  ['two types, direction 1', { callTypes: ['Refund', 'şikayet'], direction: 1, results: 'all' }],
  ['a type, direction 2, answered', { callTypes: ['SALES'], direction: 2 }],
  ['a type, new requests', { callTypes: ['Fatura İtirazı'], hasNewRequest: true, results: 'all' }],
  ['a type, a sub-range', { callTypes: ['Information'], results: 'all', from: FROM_MS + 2 * HOUR, to: FROM_MS + 5 * HOUR }],
  ['answered, the dense second alone', { from: Date.parse('2026-01-05T09:30:00Z'), to: Date.parse('2026-01-05T09:30:01Z') }]
]

/** The local search's whole answer, in its order. */
export function localIds(search: LocalSearch, q: SearchQuery): string[] {
  const out: string[] = []
  for (;;) {
    const rows = search.page(q, out.length, 1000).rows
    out.push(...rows.map((r) => r.callId))
    if (rows.length < 1000) return out
  }
}

/**
 * The service's answer for [from, to): its end is inclusive at whole seconds, so a call at
 * exactly `to` is not the query's. A query holds at most 10,000 reachable records, so the
 * range is asked for in parts of two hours, joined in the query's order.
 */
export async function remoteIds(session: Session, q: SearchQuery): Promise<string[]> {
  const parts: string[][] = []
  for (let at = q.from!; at < q.to!; at += 2 * HOUR) {
    const part = SearchQuery.parse({ ...q, from: at, to: Math.min(q.to!, at + 2 * HOUR) })
    const out: CallRecord[] = []
    for (;;) {
      const page = await remoteSearch(session, part, out.length, 500, false)
      out.push(...page.records)
      expect(page.loweredByCap).toBe(false)
      if (page.exhausted || page.records.length === 0) break
    }
    parts.push(out.filter((r) => r.callAt >= part.from! && r.callAt < part.to!).map((r) => r.callId))
  }
  return (q.sort === 'date_desc' ? parts.reverse() : parts).flat()
}
