import {
  LastRunScope,
  planningProgress,
  syncEnded,
  type CacheInfo,
  type ScopeStatus,
  type SyncProgress,
  type SyncScope
} from '../../../shared/domain'
import { CallsightError, toErrorInfo } from '../../errors'
import { SyncEngine } from '../../sync'
import { syncedSoFar } from '../../sync/checkpoint'
import type { AccountRuntime } from '../account-runtime'
import type { AppState } from '../app-state'
import type { Handlers } from '../host-ports'

export type SyncHandlers = Pick<Handlers, 'sync.start' | 'sync.cancel' | 'sync.scopes' | 'cache.info' | 'cache.clear'>

const EMPTY_CACHE: CacheInfo = { path: null, sizeBytes: 0, calls: 0, lastSyncAt: null }

/** Syncing the active account's cache, and the cache itself. */
export function syncHandlers(state: AppState): SyncHandlers {
  const { platform, syncs } = state

  /** Runs one sync as a task; its id is the run's id, in the progress events and in sync_runs. */
  function startSync(rt: AccountRuntime, scope: SyncScope, mode: 'full' | 'incremental'): string {
    return syncs.start({ progress: null }, async (signal, runId) => {
      const engine = new SyncEngine({
        source: { getCalls: (params, sig) => state.connectivity.track(rt.session.getCalls(params, sig)) },
        cache: rt.cache.sync,
        clock: platform.clock,
        logger: platform.logger,
        rateLimit: rt.account.rateLimit,
        lookbackHours: state.settings().sync.lookbackHours,
        waits: state.waits,
        pace: () => rt.limiter.status
      })
      const publish = (p: SyncProgress): void => {
        const task = syncs.get(runId)
        if (task) task.progress = p
        rt.lastSync = p
        platform.events.emit('sync.progress', p)
        if (syncEnded(p.phase)) {
          // Kept with the run, so the panel shows it again after a restart (sync.scopes).
          try {
            rt.cache.sync.saveRunProgress(runId, p)
          } catch (e) {
            // The cache was closed under the run (account removed, app quitting): memory still has it.
            platform.logger.log('warn', 'The sync run could not be saved for the sync screen', { error: String(e) })
          }
        }
      }
      try {
        await engine.run(scope, { mode, order: state.settings().sync.order, signal, onProgress: publish, runId })
      } catch (e) {
        // The engine rejects only before the run is recorded (an invalid scope, a failing cache).
        const error = toErrorInfo(e)
        publish({
          ...(syncs.get(runId)?.progress ?? planningProgress(runId, scope.from, scope.to)),
          phase: error.code === 'Cancelled' ? 'cancelled' : 'failed',
          error
        })
      }
    })
  }

  return {
    'sync.start': async ({ scope, mode }) => {
      const rt = state.requireSignedIn()
      if (syncs.size > 0) throw new CallsightError('InvalidInput', 'A sync is already running. Wait for it or cancel it first.')
      return { runId: startSync(rt, scope, mode) }
    },

    'sync.cancel': async ({ runId }) => {
      syncs.cancel(runId)
      return { ok: true as const }
    },

    'sync.scopes': async () => {
      const active = syncs.entries()[0]?.[1].progress ?? null
      const rt = state.runtime
      // Since the app started it is in memory; before, the account's cache kept it. The form
      // starts from the latest run the user chose: membership passes (one run each) are not one.
      const latest = rt?.cache.sync.recentRuns(LAST_SCOPE_LOOKBACK).find((r) => !isMembershipPass(r.params))
      const lastScope = latest ? LastRunScope.safeParse(latest.params) : null
      return {
        scopes: rt ? rt.cache.sync.scopeStatuses().map((s) => withPartial(s, rt.cache.sync.getCheckpoint(s.scopeKey))) : [],
        active,
        last: rt ? (rt.lastSync ?? rt.cache.sync.lastEndedRun()) : null,
        lastScope: lastScope?.success ? lastScope.data : null
      }
    },

    'cache.info': async () => (state.runtime ? state.runtime.cache.info() : EMPTY_CACHE),
    'cache.clear': async ({ keepAnnotations }) => {
      const rt = state.requireRuntime()
      await syncs.cancelAll()
      rt.cache.clear({ keepReview: keepAnnotations })
      return rt.cache.info()
    }
  }
}

/** A scope without coverage whose first pass stopped: the stretch its checkpoint says is stored. */
function withPartial(s: ScopeStatus, checkpoint: unknown): ScopeStatus {
  if (s.coveredFrom !== null) return s
  const part = syncedSoFar(checkpoint)
  return part === null ? s : { ...s, partialFrom: part.from, partialTo: part.to }
}

/** Runs looked through for the latest the user chose: a set of membership passes is a few dozen. */
const LAST_SCOPE_LOOKBACK = 100

function isMembershipPass(params: unknown): boolean {
  return typeof params === 'object' && params !== null && (params as { membershipPass?: unknown }).membershipPass === true
}
