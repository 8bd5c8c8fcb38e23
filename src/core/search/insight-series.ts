import { DateTime } from 'luxon'
import type { BreakdownBar, TrendBucket, TrendMeasure, TrendPoint } from '../../shared/domain'
import { QUARTER_MS } from '../cache'
import { NO_CALL } from './memory/columns'
import { dayStarts, numericBuckets, topValues } from './facets/buckets'
import type { RankedColumn } from './memory/view-columns'

/**
 * Insight's per-column charts as one pass over the query's matches against a column's ranks
 * (view-columns.ts) and the calls' quarter hours (columns.ts): no SQL per chart, so a
 * breakdown or a trend at 1,000,000 calls costs what a facet over the columns costs.
 */

/** The matched calls: the match list, or (null: every call matches) every call in date order. */
export interface Matched {
  ids: Int32Array | null
  all: Int32Array
}

function forEachMatch(m: Matched, visit: (id: number) => void): void {
  const ids = m.ids ?? m.all
  for (let i = 0; i < ids.length; i++) visit(ids[i]!)
}

/** Calls per value of the column (numeric columns in about ten ranges), most first; and calls without one. */
export function breakdownBars(col: RankedColumn, m: Matched): { bars: BreakdownBar[]; total: number; missing: number } {
  const perRank = new Float64Array(col.labels.length)
  let total = 0
  let missing = 0
  forEachMatch(m, (id) => {
    total++
    const r = id < col.rankOf.length ? col.rankOf[id]! : -1
    if (r < 0) missing++
    else perRank[r]!++
  })
  if (col.numbers !== null) return { bars: numericBuckets(col.numbers, Array.from(perRank)), total, missing }
  const counts = new Map<string, number>()
  perRank.forEach((n, r) => {
    if (n > 0) counts.set(col.labels[r]!, n)
  })
  return { bars: topValues(counts), total, missing }
}

/**
 * The column per period (day, or ISO week from Monday) of the zone: the mean of its numbers,
 * or the share of calls whose value is `measure.value`, over the matched calls that have a
 * value. Every period from the first such call to the last is present (n 0, value null when
 * none), so a gap shows as a gap. Periods are cut on quarter hours, as the per-day facet.
 */
export function trendPoints(
  col: RankedColumn,
  m: Matched,
  quarters: Int32Array,
  measure: TrendMeasure,
  bucket: TrendBucket,
  zone: string
): TrendPoint[] {
  if (measure.kind === 'mean' && col.numbers === null) return []
  const wanted = measure.kind === 'share' ? col.labels.indexOf(measure.value) : -1
  let lo = Infinity
  let hi = -Infinity
  forEachMatch(m, (id) => {
    const q = quarters[id] ?? NO_CALL
    if (q === NO_CALL || (col.rankOf[id] ?? -1) < 0) return
    if (q < lo) lo = q
    if (q > hi) hi = q
  })
  if (lo > hi) return []
  const periods = periodStarts(lo * QUARTER_MS, hi * QUARTER_MS, bucket, zone)
  const starts = periods.map((p) => p.start)
  const n = new Float64Array(periods.length)
  const sum = new Float64Array(periods.length)
  forEachMatch(m, (id) => {
    const q = quarters[id] ?? NO_CALL
    const r = col.rankOf[id] ?? -1
    if (q === NO_CALL || r < 0) return
    const p = periodOf(starts, q * QUARTER_MS)
    n[p]!++
    sum[p]! += measure.kind === 'mean' ? col.numbers![r]! : r === wanted ? 1 : 0
  })
  return periods.map((p, i) => ({ period: p.day, n: n[i]!, value: n[i]! === 0 ? null : sum[i]! / n[i]! }))
}

/** The last period starting at or before `ms` (binary search; ms is never before the first). */
function periodOf(starts: readonly number[], ms: number): number {
  let a = 0
  let b = starts.length - 1
  while (a < b) {
    const mid = (a + b + 1) >> 1
    if (starts[mid]! <= ms) a = mid
    else b = mid - 1
  }
  return a
}

/** The days of the zone over [from, to], or for weeks the Mondays that start them (the first day's week included). */
export function periodStarts(fromMs: number, toMs: number, bucket: TrendBucket, zone: string): Array<{ start: number; day: string }> {
  if (bucket === 'day') return dayStarts(fromMs, toMs, zone)
  const monday = DateTime.fromMillis(fromMs, { zone }).startOf('week').toMillis()
  return dayStarts(monday, toMs, zone).filter((d) => DateTime.fromISO(d.day, { zone }).weekday === 1)
}
