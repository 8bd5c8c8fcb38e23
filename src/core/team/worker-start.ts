import { toErrorInfo } from '../errors'
import { q } from './connection'
import { SyncEngine } from '../sync'
import { errorDetail } from './error-detail'
import type { PgSyncStore } from './pg-store'
import { scopeAt, type WorkerScopeConfig } from './worker-config'
import { writeScopeState } from './worker-scope-state'

/**
 * A worker that cannot start (the service refused its password, say after a rotation) marks
 * each of its scopes failed — and each scope's membership passes (rows named after it) — with
 * the error, so `team status` shows failing instead of the last good run. Never throws: the
 * caller is already reporting an error.
 */
export async function recordStartFailure(
  store: PgSyncStore,
  scopes: readonly WorkerScopeConfig[],
  workerName: string,
  e: unknown
): Promise<void> {
  const info = toErrorInfo(e)
  const now = Date.now()
  const rows = scopes.map((cfg) => ({ key: SyncEngine.keyOf(scopeAt(cfg, now)), name: cfg.name }))
  try {
    const passes = await store.pool.query<{ scope_key: string; name: string }>(
      `SELECT scope_key, name FROM ${q(store.schema)}.worker_scopes WHERE EXISTS (SELECT 1 FROM unnest($1::text[]) AS p(prefix) WHERE starts_with(name, p.prefix))`,
      [scopes.map((cfg) => `${cfg.name} · `)]
    )
    rows.push(...passes.rows.map((r) => ({ key: r.scope_key, name: r.name })))
  } catch {
    // The scopes themselves are still marked.
  }
  for (const row of rows) {
    await writeScopeState(
      store,
      { key: row.key, name: row.name, worker: workerName, now, leaseMs: 0 },
      {
        running: false,
        last_outcome: 'failed',
        last_finished_at: now,
        last_error_code: info.code,
        last_error_message: info.message,
        last_error_detail: errorDetail(e),
        failing_since: now
      }
    ).catch(() => undefined)
  }
}
