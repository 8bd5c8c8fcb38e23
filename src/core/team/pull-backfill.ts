import type pg from 'pg'
import { z } from 'zod'
import type { CallCache } from '../cache'
import { CallsightError } from '../errors'
import { q } from './connection'
import { membersOf, oversizedField, scopeOf } from './pull-batch'
import { CALL_COLUMNS, CALL_OVERSIZED, cappedText, chosenScopeIds, memberOf, SCOPE_KEY_BYTES } from './pull-sql'
import { PULL_LIMITS } from './pull-limits'
import { pulledCall, type PulledCall } from './pulled-rows'
import type { Backfill, WindowState } from './window'

/**
 * A widened window's missing stretch (window.ts): the calls dated in [from, to) whose change
 * number is at most the cursor the widening began at, in change-number order, `size` at a
 * time, each batch applied with the backfill's progress in one transaction. Calls changed
 * since get higher numbers and come with the forward pull that follows, so a call is never
 * missed and a newer state is never overwritten by an older one: the forward pull runs only
 * once the backfill is done. Killed at any moment, the next pull continues past the last
 * number applied.
 */
function backfillSql(schema: string, b: Backfill, size: number, scopes: readonly string[] | null): string {
  for (const n of [b.to, b.upTo, b.after, size, b.from ?? 0]) {
    if (!Number.isSafeInteger(n)) throw new Error('backfill bounds must be whole numbers')
  }
  const s = q(schema)
  // A window of chosen scopes: their members by the cursor; a call joining one later comes
  // with that membership in the forward pull.
  const chosen = chosenScopeIds(schema, scopes)
  const dated = `c.call_at < ${b.to}${b.from === null ? '' : ` AND c.call_at >= ${b.from}`}${memberOf(schema, chosen, b.upTo)}`
  const pick = `SELECT c.call_id FROM ${s}.calls c WHERE c.seq > ${b.after} AND c.seq <= ${b.upTo} AND ${dated} ORDER BY c.seq LIMIT ${size}`
  const members = `SELECT m.scope_id, m.call_id FROM ${s}.scope_members m WHERE m.seq <= ${b.upTo} AND m.call_id IN (${pick})${
    chosen === null ? '' : ` AND m.scope_id IN ${chosen}`
  }`
  return `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SELECT ${CALL_COLUMNS} FROM ${s}.calls c WHERE c.seq > ${b.after} AND c.seq <= ${b.upTo} AND ${dated} ORDER BY c.seq LIMIT ${size};
SELECT s.scope_key, m.call_id, coalesce(${CALL_OVERSIZED}, false) AS refused FROM (${members}) m JOIN ${s}.scopes s ON s.id = m.scope_id
  JOIN ${s}.calls c ON c.call_id = m.call_id;
SELECT ${cappedText('scope_key', SCOPE_KEY_BYTES)}, ${cappedText('filters', PULL_LIMITS.scopeJson)}, ${cappedText('coverage', PULL_LIMITS.scopeJson)},
  last_success_at, seq, false AS whole FROM ${s}.scopes WHERE id IN (SELECT scope_id FROM (${members}) m);
COMMIT;`
}

export interface BackfillRun {
  pool: pg.Pool
  schema: string
  cache: CallCache
  cacheId: string
  generation: string
  source: string
  cursor: number
  size: number
  /** The keys of the worker scopes the window holds; null: every scope. */
  scopes: readonly string[] | null
  signal?: AbortSignal
  /** After each batch applied: the calls it brought and the refusals (oversized calls, skipped). */
  onBatch: (calls: number, refused: CallsightError[]) => void
}

const Seq = z.union([z.string(), z.number()]).transform(Number)

/** Runs the state's backfill to its end; returns the state with the backfill fully fetched. */
export async function runBackfill(run: BackfillRun, state: WindowState): Promise<WindowState> {
  let current = state
  for (;;) {
    const b = current.backfill
    if (!b) return current
    if (run.signal?.aborted) throw new CallsightError('Cancelled', 'The pull was cancelled.')
    const results = (await run.pool.query(backfillSql(run.schema, b, run.size, run.scopes))) as unknown as pg.QueryResult[]
    const [, callRows, memberRows, scopeRows] = results
    const rows = callRows!.rows as Array<Record<string, unknown>>
    if (rows.length === 0) return current
    const refused: CallsightError[] = []
    const calls: PulledCall[] = []
    for (const raw of rows) {
      const over = oversizedField(raw)
      if (over) refused.push(over)
      else calls.push(pulledCall(raw))
    }
    const after = Math.max(...rows.map((r) => Seq.parse(r['seq'])))
    current = { ...current, backfill: { ...b, after } }
    run.cache.writePulled({
      cacheId: run.cacheId,
      generation: run.generation,
      source: run.source,
      cursor: run.cursor,
      scopes: scopeRows!.rows.map(scopeOf),
      callTypes: [],
      calls,
      members: membersOf(memberRows!.rows),
      window: current
    })
    run.onBatch(calls.length, refused)
  }
}
