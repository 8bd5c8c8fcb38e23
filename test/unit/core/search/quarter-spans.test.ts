import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearchReader, QUARTER_MS } from '../../../../src/core/cache'
import { searchTuning } from '../../../../src/core/search'
import { DataWatch } from '../../../../src/core/search/data-watch'
import { QuarterSpans } from '../../../../src/core/search/memory/quarter-spans'
import { spanInOrder } from '../../../../src/core/search/memory/relevance-topk'
import { SearchContext } from '../../../../src/core/search/search-context'
import { buildFixture, rnd, T0, type Fixture } from './fixture'

// A date range's id span from the quarter hours in memory (chunks of ids with their smallest
// and largest quarter), for relevance before the date order is in memory: the span the date
// order gives (spanInOrder), whether ids follow dates or not, and after a write.
const DAY = 86_400_000
let ordered: Fixture
let shuffled: Fixture
beforeAll(() => {
  ordered = buildFixture(1500, 3, { timeOrdered: true })
  shuffled = buildFixture(1500, 3)
})
afterAll(() => {
  ordered.close()
  shuffled.close()
})

function compare(fx: Fixture, chunk: number, seed: number): number {
  const reader = createSearchReader(fx.cache)
  const ctx = new SearchContext(reader, searchTuning())
  const spans = new QuarterSpans(() => ctx.columns.quarters(), new DataWatch(reader.data), chunk)
  const r = rnd(seed)
  let found = 0
  for (let round = 0; round < 300; round++) {
    const a = T0 + Math.floor(r() * 42 * 24 * 4) * (QUARTER_MS / 4) - DAY + Math.floor(r() * 1000)
    const from = round % 11 === 0 ? null : a
    const to = round % 7 === 0 ? null : a + Math.floor(r() * (round % 3 === 0 ? 40 : 0.5) * DAY)
    const want = spanInOrder(ctx.columns.byDate(), ctx.columns.quarters(), from, to)
    expect(spans.span(from, to), `${from}..${to}`).toEqual(want)
    if (want !== null) found++
  }
  return found
}

describe('quarter spans', () => {
  it('gives the span the date order gives, ids following dates or not', () => {
    for (const chunk of [7, 64, 1 << 14]) {
      expect(compare(ordered, chunk, chunk)).toBeGreaterThan(150)
      expect(compare(shuffled, chunk, chunk + 1)).toBeGreaterThan(150)
    }
  })

  it('follows a write: an old call with a new id', () => {
    const fx = buildFixture(500, 9, { timeOrdered: true })
    try {
      const reader = createSearchReader(fx.cache)
      const ctx = new SearchContext(reader, searchTuning())
      const spans = new QuarterSpans(() => ctx.columns.quarters(), new DataWatch(reader.data), 16)
      const week = (end: number): [number, number] => [end - 7 * DAY, end]
      // Not made, and the data just seen: not ready; at rest for no time at all, ready.
      expect(spans.ready(60_000)).toBe(false)
      expect(spans.ready(0)).toBe(true)
      const before = spans.span(...week(T0 + 40 * DAY))
      expect(spans.ready(60_000)).toBe(true)
      expect(before).toEqual(spanInOrder(ctx.columns.byDate(), ctx.columns.quarters(), ...week(T0 + 40 * DAY)))
      const last = fx.records[fx.records.length - 1]!
      const at = T0 + 2 * DAY
      fx.cache.writePage({
        scopeKey: 'everything',
        records: [{ ...last, callId: 'late-old', callAt: at, callDate: new Date(at).toISOString() }],
        includeAnalysis: true,
        checkpoint: { i: 'late' }
      })
      // A write: the chunks are made again only once the data rests (or someone asks anyway).
      expect(spans.ready(60_000)).toBe(false)
      const span = spans.span(T0, T0 + 3 * DAY)
      expect(spans.ready(60_000)).toBe(true)
      expect(span).not.toEqual(before)
      expect(span).toEqual(spanInOrder(ctx.columns.byDate(), ctx.columns.quarters(), T0, T0 + 3 * DAY))
    } finally {
      fx.close()
    }
  })

  it("answers id-range's question as the date index does, or says it cannot tell", () => {
    // Whether a call outside an id range is dated at or after (before) a time: every answer
    // given is the date index's, and most are given (ids following dates or not).
    for (const [fx, chunk, seed] of [
      [ordered, 7, 1],
      [ordered, 64, 2],
      [shuffled, 64, 3],
      [ordered, 1 << 14, 4]
    ] as const) {
      const reader = createSearchReader(fx.cache)
      const ctx = new SearchContext(reader, searchTuning())
      const spans = new QuarterSpans(() => ctx.columns.quarters(), new DataWatch(reader.data), chunk)
      const ids = reader.columns.idBounds()!
      const r = rnd(seed)
      const told = { yes: 0, no: 0, unsure: 0 }
      for (let round = 0; round < 400; round++) {
        const desc = round % 2 === 0
        // A range at the ids' end (as id-range grows it), or anywhere; a time near its calls'.
        const len = 1 + Math.floor(r() * r() * (ids.hi - ids.lo + 1))
        const lo = round % 3 === 0 ? ids.lo + Math.floor(r() * (ids.hi - ids.lo)) : desc ? ids.hi - len + 1 : ids.lo
        const span = { lo, hi: round % 3 === 0 ? Math.min(ids.hi, lo + len) : desc ? ids.hi : ids.lo + len - 1 }
        // The page's last row: a call of the range near its far end from the ids' end, dated
        // exactly, or a time a few quarter hours off.
        const edge = desc ? Math.min(span.hi, span.lo + Math.floor(r() * 5)) : Math.max(span.lo, span.hi - Math.floor(r() * 5))
        const row = reader.rows.byIds([edge])[0]
        const exact = row === undefined ? T0 + r() * 40 * DAY : row.callAt
        const at = round % 4 === 0 ? Math.floor(exact + (r() - 0.5) * 4 * QUARTER_MS) : exact
        const got = spans.datedOutside(at, span, desc)
        const sql = reader.columns.datedOutside([at, ''], span, desc)
        if (got === null) told.unsure++
        else {
          expect(got, `${at} ${span.lo}..${span.hi} ${desc}`).toBe(sql)
          if (got) told.yes++
          else told.no++
        }
      }
      expect(told.yes, JSON.stringify(told)).toBeGreaterThan(50)
      // Ids not following dates: a call outside nearly always comes first.
      if (fx === ordered) expect(told.no, JSON.stringify(told)).toBeGreaterThan(50)
      expect(told.unsure, JSON.stringify(told)).toBeLessThan(told.yes + told.no)
    }
  })
})
