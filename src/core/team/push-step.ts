import type pg from 'pg'
import type { OutboxEntry, PushOutcome } from '../cache/review/share-store'

/** PostgreSQL's "insufficient privilege": a grant or a row-level policy said no. */
const REFUSED = '42501'

/**
 * Runs one queued change under a savepoint. Who may write what is PostgreSQL's to say: a
 * change this role may not make is undone alone and reported as `refusedAs` (`stale`: it
 * stays local work; `refused`: the caller restores what the team cache holds), and the
 * push goes on with the rest.
 */
export async function pushStep(
  c: pg.ClientBase,
  e: OutboxEntry,
  refusedAs: 'stale' | 'refused',
  run: () => Promise<PushOutcome>
): Promise<PushOutcome> {
  await c.query('SAVEPOINT push_step')
  try {
    const out = await run()
    await c.query('RELEASE SAVEPOINT push_step')
    return out
  } catch (err) {
    if ((err as { code?: string }).code !== REFUSED) throw err
    await c.query('ROLLBACK TO SAVEPOINT push_step')
    return refusedAs === 'stale' ? { changeId: e.changeId, result: 'stale' } : { changeId: e.changeId, result: 'refused' }
  }
}

/** A write's outcome: applied when it changed a row, the same when the team cache held it already. */
export const done = (e: OutboxEntry, r: pg.QueryResult): PushOutcome => ({
  changeId: e.changeId,
  result: (r.rowCount ?? 0) > 0 ? 'applied' : 'same'
})
