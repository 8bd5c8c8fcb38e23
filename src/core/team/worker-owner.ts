import { hostname } from 'node:os'
import type pg from 'pg'
import { mapPgError, q } from './connection'
import { PG_NOW_MS } from './pg-clock'
import { processRuns } from './process-runs'

/**
 * A worker owns each of its scopes for as long as it lives, between runs too (a row in
 * `worker_owners`, renewed by its heartbeat, PostgreSQL's clock): a second worker started for
 * the same scopes finds them owned and waits as a standby, taking a scope over only when its
 * owner's lease lapses (the owner killed or cut off) or the owner gives it back (a clean stop).
 * The run lease in `worker_scopes` still keeps a hand-run sync and a worker apart.
 */
export class ScopeOwnership {
  private readonly s: string

  constructor(
    private readonly pool: pg.Pool,
    schema: string,
    private readonly holder: string,
    private readonly leaseMs: number
  ) {
    this.s = q(schema)
  }

  /** Takes or keeps the scope: null when owned now, else the live owner it waits for (and is recorded as standby of). */
  async claim(scopeKey: string, name: string): Promise<string | null> {
    try {
      const r = await this.pool.query(
        `INSERT INTO ${this.s}.worker_owners AS o (scope_key, name, holder, heartbeat_at, lease_ms)
         VALUES ($1, $2, $3, ${PG_NOW_MS}, $4)
         ON CONFLICT (scope_key) DO UPDATE SET name = excluded.name, holder = excluded.holder, heartbeat_at = excluded.heartbeat_at,
           lease_ms = excluded.lease_ms,
           standby = CASE WHEN o.standby = excluded.holder THEN NULL ELSE o.standby END,
           standby_at = CASE WHEN o.standby = excluded.holder THEN NULL ELSE o.standby_at END
         WHERE o.holder = excluded.holder OR o.heartbeat_at + o.lease_ms < ${PG_NOW_MS}
         RETURNING 1`,
        [scopeKey, name, this.holder, this.leaseMs]
      )
      if ((r.rowCount ?? 0) > 0) return null
      const s = await this.pool.query<{ holder: string }>(
        `UPDATE ${this.s}.worker_owners SET standby = $2, standby_at = ${PG_NOW_MS} WHERE scope_key = $1 RETURNING holder`,
        [scopeKey, this.holder]
      )
      const owner = s.rows[0]?.holder
      // Gone between the two statements (given back): the next claim takes it.
      if (owner === undefined) return '(released)'
      return (await this.takeFromDeadLocal(scopeKey, owner)) ? null : owner
    } catch (e) {
      throw mapPgError(e)
    }
  }

  /**
   * An owner that is a process of this machine that no longer runs (a worker killed and
   * started again by its service manager) is taken over at once, not after its lease lapses.
   */
  private async takeFromDeadLocal(scopeKey: string, owner: string): Promise<boolean> {
    const m = /^(.*):(\d+)$/.exec(owner)
    if (!m || m[1] !== hostname() || processRuns(Number(m[2]))) return false
    const r = await this.pool.query(
      `UPDATE ${this.s}.worker_owners SET holder = $3, heartbeat_at = ${PG_NOW_MS}, lease_ms = $4, standby = NULL, standby_at = NULL
       WHERE scope_key = $1 AND holder = $2 RETURNING 1`,
      [scopeKey, owner, this.holder, this.leaseMs]
    )
    return (r.rowCount ?? 0) > 0
  }

  /** Records this worker as the standby of a scope another worker owns, without taking it: the owner, or null when none. */
  async markStandby(scopeKey: string): Promise<string | null> {
    try {
      const r = await this.pool.query<{ holder: string }>(
        `UPDATE ${this.s}.worker_owners SET standby = $2, standby_at = ${PG_NOW_MS} WHERE scope_key = $1 AND holder <> $2 RETURNING holder`,
        [scopeKey, this.holder]
      )
      return r.rows[0]?.holder ?? null
    } catch (e) {
      throw mapPgError(e)
    }
  }

  /** Renews the given scopes' leases; returns those still owned (another worker took the rest after a lapse). */
  async renew(scopeKeys: readonly string[]): Promise<Set<string>> {
    if (scopeKeys.length === 0) return new Set()
    try {
      const r = await this.pool.query<{ scope_key: string }>(
        `UPDATE ${this.s}.worker_owners SET heartbeat_at = ${PG_NOW_MS} WHERE holder = $1 AND scope_key = ANY($2) RETURNING scope_key`,
        [this.holder, [...scopeKeys]]
      )
      return new Set(r.rows.map((x) => x.scope_key))
    } catch (e) {
      throw mapPgError(e)
    }
  }

  /** Gives every scope back (a clean stop): a standby takes them at its next look, not after a lapse. */
  async releaseAll(): Promise<void> {
    await this.pool.query(`DELETE FROM ${this.s}.worker_owners WHERE holder = $1`, [this.holder]).catch(() => undefined)
    await this.pool
      .query(`UPDATE ${this.s}.worker_owners SET standby = NULL, standby_at = NULL WHERE standby = $1`, [this.holder])
      .catch(() => undefined)
  }
}
