import { toErrorInfo } from '../errors'
import { SyncEngine } from '../sync'
import { errorDetail } from './error-detail'
import type { PgSyncStore } from './pg-store'
import { scopeAt, type WorkerScopeConfig } from './worker-config'
import { writeScopeState } from './worker-scope-state'

/**
 * A worker that cannot start (the service refused its password, say after a rotation) marks
 * each of its scopes failed, with the error, so `team status` shows failing instead of the
 * last good run. Never throws: the caller is already reporting an error.
 */
export async function recordStartFailure(
  store: PgSyncStore,
  scopes: readonly WorkerScopeConfig[],
  workerName: string,
  e: unknown
): Promise<void> {
  const info = toErrorInfo(e)
  const now = Date.now()
  for (const cfg of scopes) {
    await writeScopeState(
      store,
      { key: SyncEngine.keyOf(scopeAt(cfg, now)), name: cfg.name, worker: workerName, now, leaseMs: 0 },
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
