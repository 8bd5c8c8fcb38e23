import type Database from 'better-sqlite3'
import type { AnalysisItem, CallRecord } from '../../../shared/domain'
import { hasAnalysisLists, namedItems } from '../analysis-lists'

/** A call as stored, with what a page's copy is compared against. */
export interface KnownCall {
  call_id: string
  id: number
  call_at: number
  call_date: string
  title: string
  summary: string
  extra: string
  /** 1 once a page fetched with analysis carried the call (its items are then the service's, even when none). */
  analysis_known: 0 | 1
  /** The stored items, in order: read only when the page carries analysis. */
  items: readonly AnalysisItem[]
}

/** Whether a page's items are the stored ones, in order. */
export const sameItems = (a: readonly AnalysisItem[], b: readonly AnalysisItem[]): boolean =>
  a.length === b.length && a.every((x, i) => x.key === b[i]!.key && x.friendlyName === b[i]!.friendlyName && x.value === b[i]!.value)

const LOOKUP_CHUNK = 200

const placeholders = (n: number): string => new Array<string>(n).fill('?').join(',')

/** The lookups ingest makes for a page's calls that are already stored, in chunks with statements kept per size. */
export class KnownCalls {
  private readonly lookups = new Map<number, Database.Statement<unknown[], Omit<KnownCall, 'items'>>>()
  private readonly itemLookups = new Map<number, Database.Statement<unknown[], [number, string]>>()
  private readonly memberChecks = new Map<number, Database.Statement<unknown[], number>>()
  private readonly idLookups = new Map<number, Database.Statement<unknown[], { id: number; call_id: string; call_at: number }>>()

  /** Schema 19 on (analysis-lists.ts); before it, items are rows (a cache opened at an older version). */
  private readonly lists: boolean

  constructor(private readonly db: Database.Database) {
    this.lists = hasAnalysisLists(db)
  }

  /**
   * The page's calls already stored, by callId. A copy is compared with the stored fields
   * themselves: hashing every new call's content (SHA-1, as versions before 3 did) cost more
   * than a tenth of ingest, and reading a known call's fields back costs little.
   */
  find(records: readonly CallRecord[], includeAnalysis: boolean): Map<string, KnownCall> {
    const out = new Map<string, KnownCall>()
    for (let i = 0; i < records.length; i += LOOKUP_CHUNK) {
      const ids = records.slice(i, i + LOOKUP_CHUNK).map((r) => r.callId)
      let stmt = this.lookups.get(ids.length)
      if (!stmt) {
        stmt = this.db.prepare<unknown[], Omit<KnownCall, 'items'>>(
          `SELECT call_id, id, call_at, call_date, title, summary, extra, analysis_known FROM calls WHERE call_id IN (${placeholders(ids.length)})`
        )
        this.lookups.set(ids.length, stmt)
      }
      for (const row of stmt.all(ids)) out.set(row.call_id, { ...row, items: [] })
    }
    if (includeAnalysis && out.size > 0) {
      const byId = new Map([...out.values()].map((e) => [e.id, e]))
      const ids = [...byId.keys()]
      for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
        const chunk = ids.slice(i, i + LOOKUP_CHUNK)
        let stmt = this.itemLookups.get(chunk.length)
        if (!stmt) {
          stmt = this.db
            .prepare<unknown[], [number, string]>(
              this.lists
                ? `SELECT call, items FROM analysis_lists WHERE call IN (${placeholders(chunk.length)})`
                : `SELECT call, json_group_array(json_array(key_id, value)) FROM (SELECT call, key_id, value FROM analysis
                   WHERE call IN (${placeholders(chunk.length)}) ORDER BY call, ord) GROUP BY call`
            )
            .raw()
          this.itemLookups.set(chunk.length, stmt)
        }
        const rows = stmt.all(chunk)
        const items: Map<number, AnalysisItem[]> = this.lists ? namedItems(this.db, rows) : this.namedRows(rows)
        for (const [id, list] of items) byId.get(id)!.items = list
      }
    }
    return out
  }

  /** Items of the row layout ([call, JSON array of [key id, value]]), named. */
  private namedRows(rows: ReadonlyArray<readonly [number, string]>): Map<number, AnalysisItem[]> {
    const keys = new Map(
      (this.db.prepare('SELECT id, key, friendly_name FROM analysis_keys').raw().all() as Array<[number, string, string]>).map((k) => [
        k[0],
        k
      ])
    )
    const out = new Map<number, AnalysisItem[]>()
    for (const [call, json] of rows)
      out.set(
        call,
        (JSON.parse(json) as Array<[number, string]>).map(([keyId, value]) => ({
          key: keys.get(keyId)![1],
          friendlyName: keys.get(keyId)![2],
          value
        }))
      )
    return out
  }

  /** The id and call_at of the stored calls among `callIds` (a pull's memberships). */
  stored(callIds: readonly string[]): Array<{ id: number; call_id: string; call_at: number }> {
    const out: Array<{ id: number; call_id: string; call_at: number }> = []
    for (let i = 0; i < callIds.length; i += LOOKUP_CHUNK) {
      const chunk = callIds.slice(i, i + LOOKUP_CHUNK)
      let stmt = this.idLookups.get(chunk.length)
      if (!stmt) {
        stmt = this.db.prepare<unknown[], { id: number; call_id: string; call_at: number }>(
          `SELECT id, call_id, call_at FROM calls WHERE call_id IN (${placeholders(chunk.length)})`
        )
        this.idLookups.set(chunk.length, stmt)
      }
      for (const row of stmt.all(chunk)) out.push(row)
    }
    return out
  }

  /** Which of `ids` the scope holds already. */
  membersOf(scopeId: number, ids: readonly number[]): Set<number> {
    const out = new Set<number>()
    for (let i = 0; i < ids.length; i += LOOKUP_CHUNK) {
      const chunk = ids.slice(i, i + LOOKUP_CHUNK)
      let stmt = this.memberChecks.get(chunk.length)
      if (!stmt) {
        stmt = this.db
          .prepare<unknown[], number>(`SELECT call FROM scope_members WHERE scope = ? AND call IN (${placeholders(chunk.length)})`)
          .pluck()
        this.memberChecks.set(chunk.length, stmt)
      }
      for (const id of stmt.all(scopeId, ...chunk)) out.add(id)
    }
    return out
  }
}
