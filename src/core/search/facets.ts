import { DateTime, IANAZone } from 'luxon'
import type { AnalysisKeyInfo, Facets } from '../../shared/domain'
import { HOUR_MS, hourOf, type CallCache } from '../cache'
import { CallsightError } from '../errors'
import { type CallColumns, MAX_MASK_TYPES, NO_CALL, parseIntList, QUARTER_MS } from './columns'
import type { CompiledQuery } from './compile'
import type { StatementCache } from './statements'

const NUMERIC_BUCKETS = 10
const TOP_VALUES = 100
/**
 * Above this share of all calls, facets count the match list against the in-memory columns
 * (CallColumns); below it, they start from the matches and seek in SQLite, ~1 µs a match,
 * which needs no columns built.
 */
export const SCAN_SHARE = 1 / 20

interface Sql {
  sql: string
  params: unknown[]
}

/** The ids of all matching calls, in no particular order; null when every call matches. */
export function matchedIds(q: CompiledQuery): Sql | null {
  if (q.match === null) {
    if (q.where.length === 0) return null
    return { sql: `SELECT c.id AS id FROM calls c WHERE ${q.where.join(' AND ')}`, params: q.params }
  }
  if (q.where.length === 0) return { sql: 'SELECT rowid AS id FROM calls_fts WHERE calls_fts MATCH ?', params: [q.match] }
  return {
    sql: `SELECT c.id AS id FROM calls_fts CROSS JOIN calls c ON c.id = calls_fts.rowid WHERE ${['calls_fts MATCH ?', ...q.where].join(' AND ')}`,
    params: [q.match, ...q.params]
  }
}

const DAY_MS = 24 * HOUR_MS

/**
 * The starts of the days in `zone` from the one holding fromMs up to toMs. luxon's
 * startOf('day') per day costs ~50 µs (18 ms for a year); a day that starts at local
 * midnight and has one offset throughout ends 24 h later, which two offset look-ups
 * confirm, so luxon is asked only around offset changes (DST, zones whose day starts at
 * 01:00 on a change day).
 */
export function dayStarts(fromMs: number, toMs: number, zone: string): Array<{ start: number; day: string }> {
  const z = IANAZone.create(zone)
  const out: Array<{ start: number; day: string }> = []
  let start = DateTime.fromMillis(fromMs, { zone }).startOf('day').toMillis()
  let offset = z.offset(start)
  while (start <= toMs) {
    const wall = start + offset * 60_000
    out.push({ start, day: new Date(wall).toISOString().slice(0, 10) })
    const next = start + DAY_MS
    if (((wall % DAY_MS) + DAY_MS) % DAY_MS === 0 && z.offset(next) === offset && z.offset(next - 1) === offset) {
      start = next
      continue
    }
    start = DateTime.fromMillis(start, { zone }).plus({ days: 1 }).startOf('day').toMillis()
    offset = z.offset(start)
  }
  return out
}

/** 1, 2 or 5 times a power of ten, at least `raw`. */
export function niceStep(raw: number): number {
  if (!(raw > 0)) return 1
  const p = 10 ** Math.floor(Math.log10(raw))
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p
  return 10 * p
}

const fmt = (n: number): string => String(Number(n.toPrecision(12)))

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

const hourAligned = (ms: number): boolean => ((ms % HOUR_MS) + HOUR_MS) % HOUR_MS === 0

const byCountThenValue = (x: { value: string; count: number }, y: { value: string; count: number }): number =>
  y.count - x.count || (x.value < y.value ? -1 : x.value > y.value ? 1 : 0)

/** The calls a query matches, for counting against the columns; null when every call matches. */
export class MatchSet {
  private cached: Int32Array | null | undefined
  private bits: Uint8Array | null = null

  /** `ids`: the query's matchedIds(). Kept with the query's state, so count, facets and deep pages share one read. */
  constructor(
    readonly ids: Sql | null,
    private readonly statements: StatementCache
  ) {}

  /** Whether the list was read already. */
  get read(): boolean {
    return this.cached !== undefined
  }

  list(): Int32Array | null {
    if (this.cached === undefined) {
      this.cached =
        this.ids === null
          ? null
          : parseIntList(this.statements.get(`SELECT group_concat(id) FROM (${this.ids.sql})`).pluck().get(...this.ids.params) as string | null)
    }
    return this.cached
  }

  /** A byte per id below `size`: 1 when the call matches. Null when every call matches. */
  bitmap(size: number): Uint8Array | null {
    const list = this.list()
    if (list === null) return null
    if (this.bits?.length !== size) {
      const bits = new Uint8Array(size)
      for (let i = 0; i < list.length; i++) if (list[i]! < size) bits[list[i]!] = 1
      this.bits = bits
    }
    return this.bits
  }
}

export class FacetCounter {
  constructor(
    private readonly cache: CallCache,
    private readonly statements: StatementCache,
    private readonly columns: CallColumns,
    private readonly scanShare = SCAN_SHARE
  ) {}

  /** `matches`: the query's match set (for a common word the count has read it already). */
  compute(q: CompiledQuery, total: number, allCalls: number, analysisKey: string | null, keyInfo: AnalysisKeyInfo | undefined, zone: string, matches: MatchSet): Facets {
    if (!IANAZone.isValidZone(zone)) throw new CallsightError('InvalidInput', `"${zone}" is not a known time zone.`)
    if (q.empty || total === 0) return { total: 0, perType: [], perDay: [], perValue: [] }
    const ids = matches.ids
    const scan = ids === null || total > this.scanShare * allCalls
    // Many matches: one read of the match list, counted against the in-memory columns. The
    // SQL scan form (each facet reading its own table and testing rows against a match set
    // SQLite builds per statement) remains for what the columns cannot fold.
    const member = (col: string): Sql => (ids === null ? { sql: '1', params: [] } : { sql: `${col} IN (${ids.sql})`, params: ids.params })
    // No text and no filter but dates: the running totals answer in O(hours + values).
    const totals = q.dateOnly
    const wantValues = analysisKey !== null && keyInfo !== undefined
    return {
      total,
      perDay:
        (totals ? this.perDayFromTotals(q, zone) : null) ??
        (scan ? this.perDayFromColumns(q, zone, matches) : null) ??
        this.perDay(q, ids, scan, zone, member),
      perType: (totals ? this.perTypeFromTotals(q) : null) ?? (scan ? this.perTypeFromColumns(matches) : null) ?? this.perType(ids, scan, member),
      perValue: !wantValues
        ? []
        : ((totals && q.from === null && q.to === null ? this.perValueFromTotals(analysisKey, keyInfo.numeric) : null) ??
          (scan ? this.perValueFromColumns(analysisKey, keyInfo.numeric, matches) : this.perValue(analysisKey, keyInfo.numeric, ids!)))
    }
  }

  /** Per day from the quarter hour of each match. Null when a day does not start on a quarter hour. */
  private perDayFromColumns(q: CompiledQuery, zone: string, matches: MatchSet): Facets['perDay'] | null {
    const list = this.dayList(q, zone)
    if (list === null) return []
    const { days, hi } = list
    if (!days.every((d) => d.start % QUARTER_MS === 0)) return null
    const quarters = this.columns.quarters()
    const q0 = days[0]!.start / QUARTER_MS
    const span = Math.floor(hi / QUARTER_MS) - q0 + 1
    const perQuarter = new Uint32Array(span)
    const count = (id: number): void => {
      const k = (quarters[id] ?? NO_CALL) - q0
      if (k >= 0 && k < span) perQuarter[k]!++
    }
    const ids = matches.list()
    if (ids === null) for (let id = 0; id < quarters.length; id++) count(id)
    else for (let i = 0; i < ids.length; i++) count(ids[i]!)
    const out: Facets['perDay'] = []
    let k = 0
    for (let d = 0; d < days.length; d++) {
      const end = d + 1 < days.length ? days[d + 1]!.start / QUARTER_MS - q0 : span
      let n = 0
      for (; k < end; k++) n += perQuarter[k]!
      if (n > 0) out.push({ day: days[d]!.day, count: n })
    }
    return out
  }

  /** Per type from a bit per single-type group of scopes. Null beyond MAX_MASK_TYPES types. */
  private perTypeFromColumns(matches: MatchSet): Facets['perType'] | null {
    const byType = this.typeScopes()
    if (byType.size === 0) return []
    if (byType.size > MAX_MASK_TYPES) return null
    const types = [...byType.keys()]
    const masks = this.columns.typeMasks([...byType.values()])
    const counts = new Array<number>(types.length).fill(0)
    const count = (m: number): void => {
      while (m !== 0) {
        const low = m & -m
        counts[31 - Math.clz32(low)]!++
        m ^= low
      }
    }
    const ids = matches.list()
    if (ids === null) for (let id = 0; id < masks.length; id++) count(masks[id]!)
    else for (let i = 0; i < ids.length; i++) count(masks[ids[i]!] ?? 0)
    return types
      .map((value, t) => ({ value, count: counts[t]! }))
      .filter((t) => t.count > 0)
      .sort(byCountThenValue)
  }

  /** Per value from the key's items, kept when their call matches. */
  private perValueFromColumns(key: string, numeric: boolean, matches: MatchSet): Facets['perValue'] {
    const keyIds = this.keyIds(key)
    if (keyIds.length === 0) return []
    const col = this.columns.values(keyIds, numeric)
    const bits = matches.bitmap(this.columns.quarters().length)
    const { calls, length } = col
    // A removed item has call -1: never in the bitmap, and skipped when everything matches.
    const keep = (c: number): boolean => (bits === null ? c >= 0 : bits[c] === 1)
    if (col.nums !== null) {
      const values = new Float64Array(length)
      let n = 0
      for (let i = 0; i < length; i++) {
        const v = col.nums[i]!
        if (!Number.isNaN(v) && keep(calls[i]!)) values[n++] = v
      }
      return numericBuckets(values.subarray(0, n), null)
    }
    const codes = col.codes!
    const perCode = new Uint32Array(col.dict.length)
    for (let i = 0; i < length; i++) if (keep(calls[i]!)) perCode[codes[i]!]!++
    const counts = new Map<string, number>()
    perCode.forEach((n, c) => {
      if (n > 0) counts.set(col.dict[c]!, n)
    })
    return topValues(counts)
  }

  private dayList(q: CompiledQuery, zone: string): { days: Array<{ start: number; day: string }>; hi: number } | null {
    // Two subqueries: SQLite reads min() or max() from the index end only when the query has
    // just one of them; min and max together scan the whole index (7 ms per 100,000 calls).
    const bounds = this.statements
      .get('SELECT (SELECT min(call_at) FROM calls) AS lo, (SELECT max(call_at) FROM calls) AS hi')
      .get() as { lo: number | null; hi: number | null }
    if (bounds.lo === null || bounds.hi === null) return null
    const lo = Math.max(bounds.lo, q.from ?? bounds.lo)
    const hi = Math.min(bounds.hi, q.to === null ? bounds.hi : q.to - 1)
    if (hi < lo) return null
    const days = dayStarts(lo, hi, zone)
    return days.length === 0 ? null : { days, hi }
  }

  /**
   * Per day from calls per UTC hour. Null (use the exact path) when a day of the range does
   * not start on a whole UTC hour (zones such as Asia/Kolkata): hours cannot be folded then.
   */
  private perDayFromTotals(q: CompiledQuery, zone: string): Facets['perDay'] | null {
    const list = this.dayList(q, zone)
    if (list === null) return []
    const { days } = list
    if (!days.every((d) => hourAligned(d.start))) return null
    const split = splitHours(q.from, q.to)
    const hours = this.statements
      .get('SELECT hour, n FROM agg_hours WHERE hour >= ? AND hour < ? AND n > 0 ORDER BY hour')
      .raw(true)
      .all(split.hourFrom, split.hourTo) as Array<[number, number]>
    for (const [a, b] of split.edges) {
      const n = this.statements.get('SELECT count(*) FROM calls WHERE call_at >= ? AND call_at < ?').pluck().get(a, b) as number
      if (n > 0) hours.push([hourOf(a), n])
    }
    hours.sort((x, y) => x[0] - y[0])
    const counts = new Array<number>(days.length).fill(0)
    let d = 0
    for (const [hour, n] of hours) {
      const t = hour * HOUR_MS
      while (d + 1 < days.length && days[d + 1]!.start <= t) d++
      counts[d]! += n
    }
    return days.map((x, i) => ({ day: x.day, count: counts[i]! })).filter((x) => x.count > 0)
  }

  /** Single-type scopes by type (docs/cache.md: a call's type is known only from those). */
  private typeScopes(): Map<string, number[]> {
    const byType = new Map<string, number[]>()
    for (const s of this.cache.scopes()) {
      if (s.filters.callTypes.length !== 1) continue
      const t = s.filters.callTypes[0]!
      byType.set(t, [...(byType.get(t) ?? []), s.id])
    }
    return byType
  }

  /** Per type from members per (scope, UTC hour); null when a type has several scopes (a call may be in both). */
  private perTypeFromTotals(q: CompiledQuery): Facets['perType'] | null {
    const byType = this.typeScopes()
    if (byType.size === 0) return []
    if ([...byType.values()].some((list) => list.length > 1)) return null
    const scopeIds = [...byType.values()].map((list) => Math.trunc(list[0]!))
    const split = splitHours(q.from, q.to)
    const perScope = new Map<number, number>()
    const add = (rows: Array<[number, number]>): void => {
      for (const [scope, n] of rows) perScope.set(scope, (perScope.get(scope) ?? 0) + n)
    }
    const list = scopeIds.join(',')
    add(
      this.statements
        .get(`SELECT scope, sum(n) FROM agg_scope_hours WHERE scope IN (${list}) AND hour >= ? AND hour < ? GROUP BY scope`)
        .raw(true)
        .all(split.hourFrom, split.hourTo) as Array<[number, number]>
    )
    for (const [a, b] of split.edges) {
      add(
        this.statements
          .get(
            `SELECT m.scope, count(*) FROM calls c INDEXED BY calls_by_date CROSS JOIN scope_members m ON m.call = c.id
             WHERE c.call_at >= ? AND c.call_at < ? AND m.scope IN (${list}) GROUP BY m.scope`
          )
          .raw(true)
          .all(a, b) as Array<[number, number]>
      )
    }
    return [...byType]
      .map(([value, list]) => ({ value, count: perScope.get(list[0]!) ?? 0 }))
      .filter((t) => t.count > 0)
      .sort(byCountThenValue)
  }

  private keyIds(key: string): number[] {
    return (this.statements.get('SELECT id FROM analysis_keys WHERE key = ?').pluck().all(key) as number[]).map((n) => Math.trunc(n))
  }

  /** Per value of a key over the whole cache, from items per (key, value). */
  private perValueFromTotals(key: string, numeric: boolean): Facets['perValue'] {
    const keyIds = this.keyIds(key)
    if (keyIds.length === 0) return []
    const rows = this.statements
      .get(`SELECT value, value_num, n FROM agg_values WHERE key_id IN (${keyIds.join(',')}) AND n > 0`)
      .raw(true)
      .all() as Array<[string, number | null, number]>
    if (!numeric) {
      const counts = new Map<string, number>()
      for (const [v, , n] of rows) counts.set(v, (counts.get(v) ?? 0) + n)
      return topValues(counts)
    }
    const values: number[] = []
    const weights: number[] = []
    for (const [, num, n] of rows) {
      if (num === null) continue
      values.push(num)
      weights.push(n)
    }
    return numericBuckets(values, weights)
  }

  private perDay(q: CompiledQuery, ids: Sql | null, scan: boolean, zone: string, member: (col: string) => Sql): Facets['perDay'] {
    const list = this.dayList(q, zone)
    if (list === null) return []
    const { days, hi } = list
    let counts: number[]
    if (scan) {
      // One index range per day, in day order: the day join streams, no sorting.
      const ranges = JSON.stringify(days.map((d, i) => [d.start, days[i + 1]?.start ?? hi + 1]))
      const where = ['c.call_at >= json_extract(d.value, \'$[0]\')', 'c.call_at < json_extract(d.value, \'$[1]\')']
      const params: unknown[] = [ranges]
      if (ids !== null) {
        const m = member('c.id')
        where.push(m.sql)
        params.push(...m.params)
      }
      const rows = this.statements
        .get(`SELECT d.key AS i, count(*) AS n FROM json_each(?) d CROSS JOIN calls c INDEXED BY calls_by_date WHERE ${where.join(' AND ')} GROUP BY d.key`)
        .all(...params) as Array<{ i: number; n: number }>
      counts = new Array<number>(days.length).fill(0)
      for (const r of rows) counts[r.i] = r.n
    } else {
      const at = this.statements
        .get(`SELECT c.call_at FROM calls c WHERE c.id IN (${ids!.sql}) ORDER BY c.call_at`)
        .pluck()
        .all(...ids!.params) as number[]
      counts = new Array<number>(days.length).fill(0)
      let d = 0
      for (const t of at) {
        while (d + 1 < days.length && days[d + 1]!.start <= t) d++
        counts[d]!++
      }
    }
    return days.map((x, i) => ({ day: x.day, count: counts[i]! })).filter((x) => x.count > 0)
  }

  /** A call's type is known only from single-type scopes (docs/cache.md). */
  private perType(ids: Sql | null, scan: boolean, member: (col: string) => Sql): Facets['perType'] {
    const byType = this.typeScopes()
    if (byType.size === 0) return []
    const pairs = [...byType].flatMap(([t, scopeIds]) => scopeIds.map((id) => [id, t] as const))
    const values = pairs.map(() => '(?, ?)').join(',')
    const m = scan ? member('m.call') : { sql: `m.call IN (${ids!.sql})`, params: ids!.params }
    // A call is in a scope once; only a type vouched for by several scopes needs DISTINCT.
    const distinct = pairs.length > byType.size ? 'DISTINCT ' : ''
    return this.statements
      .get(
        `WITH t(scope, type) AS (VALUES ${values})
         SELECT t.type AS value, count(${distinct}m.call) AS count
         FROM t CROSS JOIN scope_members m INDEXED BY scope_members_by_scope ON m.scope = t.scope
         WHERE ${m.sql} GROUP BY t.type ORDER BY count DESC, value`
      )
      .all(...pairs.flat(), ...m.params) as Facets['perType']
  }

  /** Seek form (few matches; many go through the columns): each match's items by call. */
  private perValue(key: string, numeric: boolean, ids: Sql): Facets['perValue'] {
    const keyIds = this.keyIds(key)
    if (keyIds.length === 0) return []
    const from = { sql: `FROM (${ids.sql}) x CROSS JOIN analysis a ON a.call = x.id AND a.key_id IN (${keyIds.join(',')}) WHERE 1`, params: ids.params }
    // Counted in JS from one read of the values: SQLite's GROUP BY sorts every item first,
    // and a sum() per bucket compares every item against every bucket (measured 4× slower).
    if (!numeric) {
      const counts = new Map<string, number>()
      for (const v of this.statements.get(`SELECT a.value ${from.sql}`).pluck().all(...from.params) as string[]) {
        counts.set(v, (counts.get(v) ?? 0) + 1)
      }
      return topValues(counts)
    }
    const values = this.statements.get(`SELECT a.value_num ${from.sql} AND a.value_num IS NOT NULL`).pluck().all(...from.params) as number[]
    return numericBuckets(values, null)
  }
}

function topValues(counts: ReadonlyMap<string, number>): Facets['perValue'] {
  return [...counts]
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
    .slice(0, TOP_VALUES)
    .map(([value, count]) => ({ value, min: null, max: null, count }))
}

/** About ten ranges of width 1, 2 or 5 × 10ⁿ over the values; `weights[i]` items hold values[i] (1 when null). */
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
  while (bounds[bounds.length - 1]! <= hi) bounds.push(bound(bounds.length))
  const counts = new Array<number>(bounds.length - 1).fill(0)
  for (let k = 0; k < values.length; k++) {
    const v = values[k]!
    let i = Math.min(counts.length - 1, Math.max(0, Math.floor((v - start) / step)))
    while (i > 0 && v < bounds[i]!) i--
    while (i < counts.length - 1 && v >= bounds[i + 1]!) i++
    counts[i]! += weights === null ? 1 : weights[k]!
  }
  return counts
    .map((count, i) => ({ value: `${fmt(bounds[i]!)} – ${fmt(bounds[i + 1]!)}`, min: bounds[i]!, max: bounds[i + 1]!, count }))
    .filter((b) => b.count > 0)
}
