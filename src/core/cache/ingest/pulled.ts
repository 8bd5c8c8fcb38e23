import type Database from 'better-sqlite3'
import { z } from 'zod'
import type { CallRecord, CallType, ScopeStatus } from '../../../shared/domain'
import { CallsightError } from '../../errors'
import { Intervals, mergeInterval } from '../sync-state/coverage'
import type { RecordWriter } from './ingest'
import { writeWindow, type WindowState } from '../sync-state/team-window'

/**
 * A batch of changes pulled from a team cache (src/core/team/pull.ts): every row whose change
 * number is above the workstation's cursor and at most `cursor`, applied in one transaction
 * together with the new cursor, so a pull stopped at any moment continues exactly.
 */
export interface PulledBatch {
  /** The team cache's random id: a cursor is meaningless against another one. */
  cacheId: string
  /** The team cache's generation (src/core/team/generation.ts): a restore or reset changes it. */
  generation: string
  /** Where it came from, without a password (shown to the user). */
  source: string
  /** The highest change number this batch covers. */
  cursor: number
  scopes: Array<{ scopeKey: string; filters: ScopeStatus['filters']; coverage: Array<[number, number]>; lastSuccessAt: number | null }>
  callTypes: CallType[]
  /** Calls in their current state; `hasAnalysis` false when no sync carried their analysis. */
  calls: Array<{ record: CallRecord; hasAnalysis: boolean }>
  members: Array<{ scopeKey: string; callIds: string[] }>
  /** The window held once this batch is in (a backfill's progress): stored with it. */
  window?: WindowState
}

export const TeamSourceRow = z.object({
  cache_id: z.string(),
  source: z.string(),
  cursor: z.number().int(),
  pulled_at: z.number(),
  generation: z.string().nullable()
})
export interface TeamSource {
  cacheId: string
  /** Null when pulled before generations were recorded. */
  generation: string | null
  source: string
  cursor: number
  pulledAt: number
}

export function readTeamSource(db: Database.Database): TeamSource | null {
  const row = db.prepare('SELECT cache_id, source, cursor, pulled_at, generation FROM team_source WHERE id = 1').get()
  if (row === undefined) return null
  const r = TeamSourceRow.parse(row)
  return { cacheId: r.cache_id, generation: r.generation, source: r.source, cursor: r.cursor, pulledAt: r.pulled_at }
}

/** Inside the caller's transaction; the writer is begun and finished here. */
export function applyPulled(db: Database.Database, writer: RecordWriter, batch: PulledBatch, now: number): void {
  const current = readTeamSource(db)
  if (current && current.cacheId !== batch.cacheId) {
    throw new CallsightError('Storage', 'This cache was pulled from another team cache.', { hint: 'Clear the cache and pull again.' })
  }
  if (current && current.generation !== null && current.generation !== batch.generation) {
    throw new CallsightError('Storage', 'The team cache was restored or reset since this cache pulled from it.', {
      hint: 'Pull again: the pull starts over by itself.'
    })
  }
  if (current && batch.cursor < current.cursor) throw new Error('a pulled batch goes back before the cursor')
  const scopeIdOf = db.prepare<[string], number>('SELECT id FROM sync_scopes WHERE scope_key = ?').pluck()
  const upsertScope = db.prepare(
    'INSERT INTO sync_scopes (scope_key, filters) VALUES (?, ?) ON CONFLICT (scope_key) DO UPDATE SET filters = excluded.filters'
  )
  const readCoverage = db.prepare<[string], string>('SELECT coverage FROM sync_scopes WHERE scope_key = ?').pluck()
  const setScope = db.prepare(
    'UPDATE sync_scopes SET coverage = ?, last_success_at = max(coalesce(last_success_at, 0), ?) WHERE scope_key = ?'
  )
  for (const s of batch.scopes) {
    upsertScope.run(s.scopeKey, JSON.stringify(s.filters))
    let merged = Intervals.parse(JSON.parse(readCoverage.get(s.scopeKey) ?? '[]'))
    for (const iv of s.coverage) merged = mergeInterval(merged, iv)
    setScope.run(JSON.stringify(merged), s.lastSuccessAt ?? 0, s.scopeKey)
  }
  if (batch.callTypes.length > 0) {
    const put = db.prepare(
      'INSERT INTO call_types (value, description) VALUES (?, ?) ON CONFLICT (value) DO UPDATE SET description = excluded.description'
    )
    for (const t of batch.callTypes) put.run(t.value, t.description)
  }
  writer.begin()
  const withAnalysis: CallRecord[] = []
  const without: CallRecord[] = []
  for (const c of batch.calls) (c.hasAnalysis ? withAnalysis : without).push(c.record)
  if (withAnalysis.length > 0) writer.write(withAnalysis, null, true, now)
  if (without.length > 0) writer.write(without, null, false, now)
  for (const m of batch.members) {
    const scopeId = scopeIdOf.get(m.scopeKey)
    if (scopeId === undefined) throw new CallsightError('Storage', `The team cache sent members of an unknown scope (${m.scopeKey}).`)
    const missing = writer.addMembers(m.callIds, scopeId)
    if (missing.length > 0) throw new CallsightError('Storage', `The team cache sent members of ${missing.length} call(s) it did not send.`)
  }
  writer.finish()
  db.prepare(
    `INSERT INTO team_source (id, cache_id, source, cursor, pulled_at, generation) VALUES (1, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET cache_id = excluded.cache_id, source = excluded.source, cursor = excluded.cursor,
       pulled_at = excluded.pulled_at, generation = excluded.generation`
  ).run(batch.cacheId, batch.source, batch.cursor, now, batch.generation)
  if (batch.window) writeWindow(db, batch.window)
}
