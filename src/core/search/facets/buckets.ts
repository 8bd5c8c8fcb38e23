import { foldText } from '../../../shared/text/fold'
import { DateTime, IANAZone } from 'luxon'
import type { Facets } from '../../../shared/domain'
import { HOUR_MS } from '../../cache'

/**
 * The pure arithmetic of facets: days of a zone, UTC hours of a range, numeric ranges, top
 * values. No I/O: the facet sources (this folder) read the counts and fold them here.
 */

const DAY_MS = 24 * HOUR_MS
const NUMERIC_BUCKETS = 10
const TOP_VALUES = 100

/** The values of a numeric key among a query's calls: the value box's range. */
export interface NumericRange {
  min: number
  max: number
  items: number
}

/** The start of one day of a zone, and its date there (YYYY-MM-DD). */
export interface DayStart {
  start: number
  day: string
}

/** `ms` mod `step`, in [0, step) for negative instants too (JS `%` keeps the dividend's sign). */
const mod = (ms: number, step: number): number => ((ms % step) + step) % step

export const hourAligned = (ms: number): boolean => mod(ms, HOUR_MS) === 0

/**
 * The starts of the days in `zone` from the one holding fromMs up to toMs. luxon's
 * startOf('day') per day costs ~50 µs (18 ms for a year); a day that starts at local
 * midnight and has one offset throughout ends 24 h later, which two offset look-ups
 * confirm, so luxon is asked only around offset changes (DST, zones whose day starts at
 * 01:00 on a change day).
 */
export function dayStarts(fromMs: number, toMs: number, zone: string): DayStart[] {
  const z = IANAZone.create(zone)
  const out: DayStart[] = []
  let start = DateTime.fromMillis(fromMs, { zone }).startOf('day').toMillis()
  let offset = z.offset(start)
  while (start <= toMs) {
    const wall = start + offset * 60_000
    out.push({ start, day: new Date(wall).toISOString().slice(0, 10) })
    const next = start + DAY_MS
    if (mod(wall, DAY_MS) === 0 && z.offset(next) === offset && z.offset(next - 1) === offset) {
      start = next
      continue
    }
    start = DateTime.fromMillis(start, { zone }).plus({ days: 1 }).startOf('day').toMillis()
    offset = z.offset(start)
  }
  return out
}

/**
 * A date range as whole UTC hours [hourFrom, hourTo), read from the running totals, and at
 * most two partial hours at its ends, [from, to) instants counted exactly on the date index.
 */
export interface HourSplit {
  hourFrom: number
  hourTo: number
  edges: Array<[number, number]>
}

export function splitHours(from: number | null, to: number | null): HourSplit {
  const lo = from === null ? Number.MIN_SAFE_INTEGER : Math.ceil(from / HOUR_MS)
  const hi = to === null ? Number.MAX_SAFE_INTEGER : Math.floor(to / HOUR_MS)
  if (lo > hi) return { hourFrom: 0, hourTo: 0, edges: from !== null && to !== null && from < to ? [[from, to]] : [] }
  const edges: Array<[number, number]> = []
  if (from !== null && from < lo * HOUR_MS) edges.push([from, lo * HOUR_MS])
  if (to !== null && hi * HOUR_MS < to) edges.push([hi * HOUR_MS, to])
  return { hourFrom: lo, hourTo: hi, edges }
}

/** The per-day facet: days with calls, in day order. */
function dayFacet(days: readonly DayStart[], counts: ArrayLike<number>): Facets['perDay'] {
  const out: Facets['perDay'] = []
  for (let i = 0; i < days.length; i++) if (counts[i]! > 0) out.push({ day: days[i]!.day, count: counts[i]! })
  return out
}

/** Counts at instants (ascending: [instant, count]) folded into the days they fall in. */
export function foldIntoDays(days: readonly DayStart[], points: Iterable<readonly [number, number]>): Facets['perDay'] {
  const counts = new Array<number>(days.length).fill(0)
  let d = 0
  for (const [t, n] of points) {
    while (d + 1 < days.length && days[d + 1]!.start <= t) d++
    counts[d]! += n
  }
  return dayFacet(days, counts)
}

/**
 * Counts per quarter hour from quarter q0 on folded into days. Every day must start on a
 * quarter hour (the caller checks); the last day runs to the end of `perQuarter`.
 */
export function foldQuarters(days: readonly DayStart[], q0: number, quarterMs: number, perQuarter: ArrayLike<number>): Facets['perDay'] {
  const counts = new Array<number>(days.length).fill(0)
  let k = 0
  for (let d = 0; d < days.length; d++) {
    const end = d + 1 < days.length ? days[d + 1]!.start / quarterMs - q0 : perQuarter.length
    for (; k < end; k++) counts[d]! += perQuarter[k]!
  }
  return dayFacet(days, counts)
}

/** Counts by range index (`{i, n}`, as SQL groups them) as the per-day facet. */
export function dayFacetOf(days: readonly DayStart[], rows: ReadonlyArray<{ i: number; n: number }>): Facets['perDay'] {
  const counts = new Array<number>(days.length).fill(0)
  for (const r of rows) counts[r.i] = r.n
  return dayFacet(days, counts)
}

export const byCountThenValue = (x: { value: string; count: number }, y: { value: string; count: number }): number =>
  y.count - x.count || (x.value < y.value ? -1 : x.value > y.value ? 1 : 0)

/** Types with calls, most first (ties by name). */
export function typeFacet(counts: Iterable<readonly [string, number]>): Facets['perType'] {
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .filter((t) => t.count > 0)
    .sort(byCountThenValue)
}

/** The TOP_VALUES most frequent values, most first (ties by value). */
export function topValues(counts: ReadonlyMap<string, number>, contains?: string): Facets['perValue'] {
  // `contains` (folded): the value box's typed text, so values past the first 100 are found.
  return [...counts]
    .filter(([value]) => contains === undefined || contains === '' || foldText(value).includes(contains))
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
    .slice(0, TOP_VALUES)
    .map(([value, count]) => ({ value, min: null, max: null, count }))
}

/** Occurrences of each value. */
export function tally(values: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>()
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1)
  return counts
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0)) return 1
  const p = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p
  return 10 * p
}

const fmt = (n: number): string => String(Number(n.toPrecision(12)))

/** The smallest and largest value and how many items hold a value; `weights[i]` items hold values[i] (1 when null). */
export function numericRange(values: ArrayLike<number>, weights: readonly number[] | null): NumericRange | null {
  let min = Infinity
  let max = -Infinity
  let items = 0
  for (let k = 0; k < values.length; k++) {
    const w = weights === null ? 1 : weights[k]!
    if (w <= 0) continue
    const v = values[k]!
    if (v < min) min = v
    if (v > max) max = v
    items += w
  }
  return items === 0 ? null : { min, max, items }
}

/**
 * About ten ranges of width 1, 2 or 5 × 10ⁿ over the values; `weights[i]` items hold values[i]
 * (1 when null). Ranges are [min, max) but the last, which is [min, max] and says `closed`.
 */
export function numericBuckets(values: ArrayLike<number>, weights: readonly number[] | null): Facets['perValue'] {
  if (values.length === 0) return []
  let lo = Infinity
  let hi = -Infinity
  for (let k = 0; k < values.length; k++) {
    const v = values[k]!
    if (v < lo) lo = v
    if (v > hi) hi = v
  }
  const step = niceStep((hi - lo) / NUMERIC_BUCKETS)
  const start = Math.floor(lo / step) * step
  // Shared boundaries (rounded once), so buckets neither overlap nor leave gaps.
  const bound = (k: number): number => Number((start + k * step).toPrecision(12))
  const bounds: number[] = [bound(0)]
  // The last range is closed, [a, b]: the largest value (a score of 100) ends the last range
  // ("90 – 100") instead of opening one of its own ("100 – 110") that only it would fill.
  while (bounds.length < 2 || bounds[bounds.length - 1]! < hi) bounds.push(bound(bounds.length))
  const counts = new Array<number>(bounds.length - 1).fill(0)
  for (let k = 0; k < values.length; k++) {
    const v = values[k]!
    let i = Math.min(counts.length - 1, Math.max(0, Math.floor((v - start) / step)))
    while (i > 0 && v < bounds[i]!) i--
    while (i < counts.length - 1 && v >= bounds[i + 1]!) i++
    counts[i]! += weights === null ? 1 : weights[k]!
  }
  return counts
    .map((count, i) => ({
      value: `${fmt(bounds[i]!)} – ${fmt(bounds[i + 1]!)}`,
      min: bounds[i]!,
      max: bounds[i + 1]!,
      count,
      ...(i === counts.length - 1 ? { closed: true } : {})
    }))
    .filter((b) => b.count > 0)
}
