import type Database from 'better-sqlite3'
import { BulkInsert } from './ingest/bulk'

export const HOUR_MS = 3_600_000

/** The UTC hour an instant falls in (floor, so instants before 1970 land correctly too). */
export const hourOf = (ms: number): number => Math.floor(ms / HOUR_MS)

/** The same in SQL, for backfilling: SQLite's integer division truncates toward zero. */
export const SQL_HOUR_OF = (col: string): string => `((${col} - ((${col} % ${HOUR_MS}) + ${HOUR_MS}) % ${HOUR_MS}) / ${HOUR_MS})`

/**
 * Running totals behind the unfiltered and date-only facets (migration 2): calls per UTC
 * hour, scope members per (scope, UTC hour), analysis items per (key, value). A page
 * collects its deltas here and writes them with one upsert per distinct bucket, inside the
 * page's transaction, so the totals commit or roll back with the rows they count.
 */
export class FacetTotals {
  private readonly hours = new Map<number, number>()
  /** scope → hour → delta: nested, so no key string is built per membership. */
  private readonly scopeHours = new Map<number, Map<number, number>>()
  /** key id → value → [key id, value, numeric value, delta]; nested so no key string is built per item. */
  private readonly values = new Map<number, Map<string, [number, string, number | null, number]>>()
  private readonly hoursUp: BulkInsert
  private readonly scopeHoursUp: BulkInsert
  private readonly valuesUp: BulkInsert

  constructor(db: Database.Database) {
    this.hoursUp = new BulkInsert(db, 'INSERT INTO agg_hours (hour, n)', 2, 200, 'ON CONFLICT (hour) DO UPDATE SET n = n + excluded.n')
    this.scopeHoursUp = new BulkInsert(
      db,
      'INSERT INTO agg_scope_hours (scope, hour, n)',
      3,
      200,
      'ON CONFLICT (scope, hour) DO UPDATE SET n = n + excluded.n'
    )
    this.valuesUp = new BulkInsert(
      db,
      'INSERT INTO agg_values (key_id, value, value_num, n)',
      4,
      200,
      'ON CONFLICT (key_id, value) DO UPDATE SET n = n + excluded.n'
    )
  }

  call(hour: number, delta: number): void {
    this.hours.set(hour, (this.hours.get(hour) ?? 0) + delta)
  }

  member(scope: number, hour: number, delta: number): void {
    let byHour = this.scopeHours.get(scope)
    if (!byHour) this.scopeHours.set(scope, (byHour = new Map()))
    byHour.set(hour, (byHour.get(hour) ?? 0) + delta)
  }

  item(keyId: number, value: string, num: number | null, delta: number): void {
    let byValue = this.values.get(keyId)
    if (!byValue) this.values.set(keyId, (byValue = new Map()))
    const cur = byValue.get(value)
    if (cur) cur[3] += delta
    else byValue.set(value, [keyId, value, num, delta])
  }

  /** Writes the collected deltas (inside the caller's transaction) and starts over. */
  flush(): void {
    const { hoursUp, scopeHoursUp, valuesUp } = this
    for (const [hour, n] of this.hours) {
      if (n === 0) continue
      hoursUp.put(hour)
      hoursUp.put(n)
    }
    for (const [scope, byHour] of this.scopeHours) {
      for (const [hour, n] of byHour) {
        if (n === 0) continue
        scopeHoursUp.put(scope)
        scopeHoursUp.put(hour)
        scopeHoursUp.put(n)
      }
    }
    for (const byValue of this.values.values()) {
      for (const v of byValue.values()) {
        if (v[3] === 0) continue
        for (const x of v) valuesUp.put(x)
      }
    }
    hoursUp.flush()
    scopeHoursUp.flush()
    valuesUp.flush()
    this.reset()
  }

  /** Forgets every delta, and rows put and not inserted (a failed transaction's: it rolled back). */
  reset(): void {
    this.hours.clear()
    this.scopeHours.clear()
    this.values.clear()
    this.hoursUp.discard()
    this.scopeHoursUp.discard()
    this.valuesUp.discard()
  }
}
