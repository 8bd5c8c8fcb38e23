import { defineStore } from 'pinia'
import { ref } from 'vue'
import {
  planningProgress,
  syncEnded,
  type LastRunScope,
  type MembershipProgress,
  type ScopeStatus,
  type SyncProgress,
  type SyncScopeInput
} from '../../../shared/domain'
import type { AppErrorInfo } from '../../../shared/errors'
import { call, listen } from '../api'
import { toErrorInfo } from '../lib/errorMessage'
import { useAppStore } from './app'

/** While a run stores calls, the status bar's count is read again at most this often. */
const CACHE_FACTS_EVERY_MS = 5_000

/** Sync runs: the one in progress (fed by events) and the scopes synced so far. */
export const useSyncStore = defineStore('sync', () => {
  const scopes = ref<ScopeStatus[]>([])
  const progress = ref<SyncProgress | null>(null)
  const runId = ref<string | null>(null)
  const error = ref<AppErrorInfo | null>(null)
  const starting = ref(false)
  /** A scope another screen asked to sync ("Sync this" on the coverage banner); the sync screen takes it once. */
  const prefill = ref<SyncScopeInput | null>(null)
  /** The account's latest run as the user chose it: the form starts from it, and Continue runs it again. */
  const lastScope = ref<LastRunScope | null>(null)
  /** Called when a run finishes, so the shell can toast it. */
  let onFinished: (p: SyncProgress) => void = () => {}
  let unlisten: (() => void) | null = null
  let unlistenPasses: (() => void) | null = null
  /** The membership passes of the run in progress (or the last one): which pass, and whether all ended. */
  const membership = ref<MembershipProgress | null>(null)
  let cacheFactsAt = 0
  /** Moves at each account switch: a reply asked for the account left is dropped. */
  let account = 0
  /** Runs of accounts switched away from: the last events of one cancelled by the switch may still come in. */
  const left = new Set<string>()

  function subscribe(finished: (p: SyncProgress) => void): void {
    onFinished = finished
    unlisten?.()
    unlisten = listen('sync.progress', (p) => {
      if (left.has(p.runId)) return
      if (runId.value !== null && p.runId !== runId.value) return
      runId.value = p.runId
      progress.value = p
      if (syncEnded(p.phase)) {
        runId.value = null
        // The run's own panel shows its failure; `error` is for a run that never started.
        onFinished(p)
        void refresh()
        void useAppStore().refreshCache()
      } else if (p.stored > 0 && Date.now() - cacheFactsAt >= CACHE_FACTS_EVERY_MS) {
        // The status bar follows the run: its call count grows as pages are stored.
        cacheFactsAt = Date.now()
        void useAppStore().refreshCache()
      }
    })
    unlistenPasses?.()
    unlistenPasses = listen('sync.membershipProgress', (p) => {
      if (left.has(p.runId) || (runId.value !== null && p.runId !== runId.value)) return
      membership.value = p
    })
  }

  async function refresh(): Promise<void> {
    const asked = account
    try {
      const r = await call('sync.scopes', {})
      if (asked !== account) return
      scopes.value = r.scopes
      lastScope.value = r.lastScope ?? null
      if (r.active && !syncEnded(r.active.phase)) {
        progress.value = r.active
        runId.value = r.active.runId
      } else if (progress.value === null && r.last !== null) {
        // The account's last run since the app started (it was switched back to), as it ended.
        progress.value = r.last
      }
    } catch (e) {
      if (asked === account) error.value = toErrorInfo(e)
    }
  }

  /**
   * Another account became active: nothing shown may be the one left's (its last run, its
   * scopes, an error). The panel shows this account's own last run, or none.
   */
  async function accountChanged(): Promise<void> {
    account++
    for (const id of [runId.value, progress.value?.runId]) if (id) left.add(id)
    progress.value = null
    runId.value = null
    membership.value = null
    error.value = null
    scopes.value = []
    lastScope.value = null
    prefill.value = null
    await refresh()
  }

  async function start(scope: SyncScopeInput, mode: 'full' | 'incremental' = 'incremental'): Promise<void> {
    error.value = null
    starting.value = true
    membership.value = null
    // The last run's panel gives way at once: until this run's reply or first event it says
    // "planning", never the finished run's "done" (read as this run's on a slow machine).
    const before = progress.value
    progress.value = planningProgress('', scope.from, scope.to)
    try {
      const r = await call('sync.start', { scope, mode })
      // The run's events may come in before the reply (another channel): they are newer.
      if (progress.value?.runId !== r.runId) {
        runId.value = r.runId
        progress.value = planningProgress(r.runId, scope.from, scope.to)
      }
    } catch (e) {
      error.value = toErrorInfo(e)
      if (progress.value?.runId === '') progress.value = before
    } finally {
      starting.value = false
    }
  }

  async function cancel(): Promise<void> {
    if (!runId.value) return
    try {
      await call('sync.cancel', { runId: runId.value })
    } catch (e) {
      error.value = toErrorInfo(e)
    }
  }

  /**
   * Membership passes over [from, to) when a sync of everything holds its calls: true when
   * they started (the sync screen follows them as a run), false when the calls are not
   * cached and a sync is what fills the range.
   */
  async function startMemberships(from: number, to: number): Promise<boolean> {
    error.value = null
    try {
      const { cached } = await call('sync.membershipEstimate', { from, to })
      if (!cached) return false
      membership.value = null
      progress.value = planningProgress('', from, to)
      const r = await call('sync.memberships', { from, to })
      if (progress.value?.runId !== r.runId) {
        runId.value = r.runId
        progress.value = planningProgress(r.runId, from, to)
      }
      return true
    } catch (e) {
      error.value = toErrorInfo(e)
      return true
    }
  }

  function takePrefill(): SyncScopeInput | null {
    const p = prefill.value
    prefill.value = null
    return p
  }

  return {
    prefill,
    takePrefill,
    startMemberships,
    lastScope,
    scopes,
    progress,
    membership,
    runId,
    error,
    starting,
    subscribe,
    refresh,
    accountChanged,
    start,
    cancel
  }
})
