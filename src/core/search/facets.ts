import { DateTime, IANAZone } from 'luxon'
import type { AnalysisKeyInfo, Facets } from '../../shared/domain'
import type { CallCache } from '../cache'
import { CallsightError } from '../errors'
import type { CompiledQuery } from './compile'
import type { StatementCache } from './statements'

const NUMERIC_BUCKETS = 10
const TOP_VALUES = 100
/**
 * Above this share of all calls, a facet scans its own table in order and tests each row
 * against the match set (which SQLite builds once, as an IN list); below it, it starts from
 * the matches and seeks. Seeking costs ~1 µs a match, scanning ~0.1 µs a row.
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

export function dayStarts(fromMs: number, toMs: number, zone: string): Array<{ start: number; day: string }> {
  const out: Array<{ start: number; day: string }> = []
  let d = DateTime.fromMillis(fromMs, { zone }).startOf('day')
  while (d.toMillis() <= toMs) {
    out.push({ start: d.toMillis(), day: d.toISODate() ?? '' })
    d = d.plus({ days: 1 }).startOf('day')
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

export class FacetCounter {
  constructor(
    private readonly cache: CallCache,
    private readonly statements: StatementCache
  ) {}

  compute(q: CompiledQuery, total: number, allCalls: number, analysisKey: string | null, keyInfo: AnalysisKeyInfo | undefined, zone: string): Facets {
    if (!IANAZone.isValidZone(zone)) throw new CallsightError('InvalidInput', `"${zone}" is not a known time zone.`)
    if (q.empty || total === 0) return { total: 0, perType: [], perDay: [], perValue: [] }
    const ids = matchedIds(q)
    const scan = ids === null || total > SCAN_SHARE * allCalls
    // In scan form a facet reads its own table in order and keeps rows whose call is in the
    // match set, which SQLite builds once per statement (an IN list with a Bloom filter). A
    // shared temp table was tried: filling it and probing its b-tree was slower at 1,000,000.
    const member = (col: string): Sql => (ids === null ? { sql: '1', params: [] } : { sql: `${col} IN (${ids.sql})`, params: ids.params })
    return {
      total,
      perDay: this.perDay(q, ids, scan, zone, member),
      perType: this.perType(ids, scan, member),
      perValue: analysisKey !== null && keyInfo ? this.perValue(analysisKey, keyInfo.numeric, ids, scan, member) : []
    }
  }

  private perDay(q: CompiledQuery, ids: Sql | null, scan: boolean, zone: string, member: (col: string) => Sql): Facets['perDay'] {
    const db = this.cache.db
    const bounds = db.prepare('SELECT min(call_at) AS lo, max(call_at) AS hi FROM calls').get() as { lo: number | null; hi: number | null }
    if (bounds.lo === null || bounds.hi === null) return []
    const lo = Math.max(bounds.lo, q.from ?? bounds.lo)
    const hi = Math.min(bounds.hi, q.to === null ? bounds.hi : q.to - 1)
    if (hi < lo) return []
    const days = dayStarts(lo, hi, zone)
    if (days.length === 0) return []
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
    const byType = new Map<string, number[]>()
    for (const s of this.cache.scopes()) {
      if (s.filters.callTypes.length !== 1) continue
      const t = s.filters.callTypes[0]!
      byType.set(t, [...(byType.get(t) ?? []), s.id])
    }
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

  private perValue(key: string, numeric: boolean, ids: Sql | null, scan: boolean, member: (col: string) => Sql): Facets['perValue'] {
    const keyIds = (this.cache.db.prepare('SELECT id FROM analysis_keys WHERE key = ?').pluck().all(key) as number[]).map((n) => Math.trunc(n))
    if (keyIds.length === 0) return []
    // Scan form: the key's items are one contiguous range of the analysis table.
    const from = scan
      ? (() => {
          const m = member('a.call')
          return { sql: `FROM analysis a WHERE a.key_id IN (${keyIds.join(',')}) AND ${m.sql}`, params: m.params }
        })()
      : { sql: `FROM (${ids!.sql}) x CROSS JOIN analysis a ON a.key_id IN (${keyIds.join(',')}) AND a.call = x.id WHERE 1`, params: ids!.params }
    // Counted in JS from one read of the values: SQLite's GROUP BY sorts every item first,
    // and a sum() per bucket compares every item against every bucket (measured 4× slower).
    if (!numeric) {
      const counts = new Map<string, number>()
      for (const v of this.statements.get(`SELECT a.value ${from.sql}`).pluck().all(...from.params) as string[]) {
        counts.set(v, (counts.get(v) ?? 0) + 1)
      }
      return [...counts]
        .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0))
        .slice(0, TOP_VALUES)
        .map(([value, count]) => ({ value, min: null, max: null, count }))
    }
    const values = this.statements.get(`SELECT a.value_num ${from.sql} AND a.value_num IS NOT NULL`).pluck().all(...from.params) as number[]
    if (values.length === 0) return []
    let lo = Infinity
    let hi = -Infinity
    for (const v of values) {
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
    for (const v of values) {
      let i = Math.min(counts.length - 1, Math.max(0, Math.floor((v - start) / step)))
      while (i > 0 && v < bounds[i]!) i--
      while (i < counts.length - 1 && v >= bounds[i + 1]!) i++
      counts[i]!++
    }
    return counts
      .map((count, i) => ({ value: `${fmt(bounds[i]!)} – ${fmt(bounds[i + 1]!)}`, min: bounds[i]!, max: bounds[i + 1]!, count }))
      .filter((b) => b.count > 0)
  }
}
