import type pg from 'pg'
import { mapPgError } from './connection'

/**
 * Runs `work` in one transaction on `c`: `begin` (BEGIN, or BEGIN with an isolation level or
 * a lock), then COMMIT; ROLLBACK when it throws, and the error passed on as it was thrown (the
 * caller maps it). A ROLLBACK that fails too (the session is gone) is not the error to report.
 */
export async function inTransaction<T>(c: pg.ClientBase, work: () => Promise<T>, begin = 'BEGIN'): Promise<T> {
  try {
    await c.query(begin)
    const out = await work()
    await c.query('COMMIT')
    return out
  } catch (e) {
    await c.query('ROLLBACK').catch(() => undefined)
    throw e
  }
}

/**
 * Runs `work` in one transaction on a connection of `pool` (inTransaction), released after it;
 * what it throws, and a connection that cannot be had, as mapPgError says it.
 */
export async function poolTransaction<T>(pool: pg.Pool, work: (c: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  let c: pg.PoolClient
  try {
    c = await pool.connect()
  } catch (e) {
    throw mapPgError(e)
  }
  try {
    return await inTransaction(c, () => work(c), begin)
  } catch (e) {
    throw mapPgError(e)
  } finally {
    c.release()
  }
}
