import type Database from 'better-sqlite3'
import { ScopeStatus, SyncOutcome } from '../../../shared/domain'
import { CallsightError } from '../../errors'
import { mergeInterval, Intervals } from './coverage'

export type ScopeFilters = ScopeStatus['filters']

interface ScopeRowDb {
  id: number
  scope_key: string
  filters: string
  checkpoint: string | null
  coverage: string
  last_success_at: number | null
}

const FiltersJson = ScopeStatus.shape.filters

const parseJson = (text: string): unknown => JSON.parse(text) as unknown
const checkpointJson = (checkpoint: unknown): string | null =>
  checkpoint === null || checkpoint === undefined ? null : JSON.stringify(checkpoint)

/** The `sync_scopes` table: each scope's filters, checkpoint, coverage and last success. */
export class SyncScopes {
  private readonly ids = new Map<string, number>()

  constructor(private readonly db: Database.Database) {}

  /** The scope's row id; a scope must have been ensured before pages are written to it. */
  id(scopeKey: string): number {
    let id = this.ids.get(scopeKey)
    if (id === undefined) {
      id = this.db.prepare('SELECT id FROM sync_scopes WHERE scope_key = ?').pluck().get(scopeKey) as number | undefined
      if (id === undefined) throw new CallsightError('InvalidInput', `The sync scope "${scopeKey}" is not known to the cache.`)
      this.ids.set(scopeKey, id)
    }
    return id
  }

  /** After the table was emptied. */
  forget(): void {
    this.ids.clear()
  }

  ensure(scopeKey: string, filters: ScopeFilters): void {
    const json = JSON.stringify(FiltersJson.parse(filters))
    this.db
      .prepare(
        'INSERT INTO sync_scopes (scope_key, filters) VALUES (?, ?) ON CONFLICT (scope_key) DO UPDATE SET filters = excluded.filters'
      )
      .run(scopeKey, json)
  }

  checkpoint(scopeKey: string): unknown {
    const raw = this.db.prepare('SELECT checkpoint FROM sync_scopes WHERE scope_key = ?').pluck().get(scopeKey) as string | null | undefined
    return raw === null || raw === undefined ? null : parseJson(raw)
  }

  setCheckpoint(scopeId: number, checkpoint: unknown): void {
    this.db.prepare('UPDATE sync_scopes SET checkpoint = ? WHERE id = ?').run(checkpointJson(checkpoint), scopeId)
  }

  addCoverage(scopeKey: string, from: number, to: number): void {
    const id = this.id(scopeKey)
    this.db
      .transaction(() => {
        const raw = this.db.prepare('SELECT coverage FROM sync_scopes WHERE id = ?').pluck().get(id) as string
        const merged = mergeInterval(Intervals.parse(parseJson(raw)), [from, to])
        this.db.prepare('UPDATE sync_scopes SET coverage = ? WHERE id = ?').run(JSON.stringify(merged), id)
      })
      .immediate()
  }

  coverage(scopeKey: string): Array<[number, number]> {
    const raw = this.db.prepare('SELECT coverage FROM sync_scopes WHERE scope_key = ?').pluck().get(scopeKey) as string | undefined
    return raw === undefined ? [] : Intervals.parse(parseJson(raw))
  }

  markSuccess(scopeKey: string, at: number): void {
    this.db.prepare('UPDATE sync_scopes SET last_success_at = ? WHERE id = ?').run(at, this.id(scopeKey))
  }

  list(): Array<{ id: number; scopeKey: string; filters: ScopeFilters; coverage: Array<[number, number]> }> {
    const rows = this.db.prepare('SELECT id, scope_key, filters, coverage FROM sync_scopes ORDER BY id').all() as ScopeRowDb[]
    return rows.map((r) => ({
      id: r.id,
      scopeKey: r.scope_key,
      filters: FiltersJson.parse(parseJson(r.filters)),
      coverage: Intervals.parse(parseJson(r.coverage))
    }))
  }

  statuses(): ScopeStatus[] {
    const rows = this.db.prepare('SELECT * FROM sync_scopes ORDER BY id').all() as ScopeRowDb[]
    const lastOutcome = this.db
      .prepare('SELECT outcome FROM sync_runs WHERE scope_key = ? ORDER BY started_at DESC, rowid DESC LIMIT 1')
      .pluck()
    const members = this.db.prepare('SELECT count(*) FROM scope_members WHERE scope = ?').pluck()
    return rows.map((r) => {
      const cov = Intervals.parse(parseJson(r.coverage))
      const outcome = lastOutcome.get(r.scope_key) as string | undefined
      return {
        scopeKey: r.scope_key,
        filters: FiltersJson.parse(parseJson(r.filters)),
        coveredFrom: cov.length ? cov[0]![0] : null,
        coveredTo: cov.length ? cov[cov.length - 1]![1] : null,
        lastSuccessAt: r.last_success_at,
        lastOutcome: outcome === undefined ? null : SyncOutcome.parse(outcome),
        calls: members.get(r.id) as number
      }
    })
  }
}

/**
 * Prepared counts over a range: the calls by the date index, and a scope's members through its
 * membership index (both bounded by the range asked for). The membership estimate reads them.
 */
export function rangeCounts(db: Database.Database): {
  calls(from: number, to: number): number
  members(scopeKey: string, from: number, to: number): number
} {
  const calls = db.prepare('SELECT count(*) FROM calls WHERE call_at >= ? AND call_at < ?').pluck()
  const members = db
    .prepare(
      `SELECT count(*) FROM scope_members m JOIN calls c ON c.id = m.call
       WHERE m.scope = (SELECT id FROM sync_scopes WHERE scope_key = ?) AND c.call_at >= ? AND c.call_at < ?`
    )
    .pluck()
  return {
    calls: (from, to) => calls.get(from, to) as number,
    members: (key, from, to) => members.get(key, from, to) as number
  }
}
