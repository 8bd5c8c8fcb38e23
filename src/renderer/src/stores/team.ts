import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { AppErrorInfo } from '../../../shared/errors'
import type { ReviewQueue, TeamPullProgress, TeamSchedule, TeamStatus } from '../../../shared/team'
import { call, listen } from '../api'
import { toErrorInfo } from '../lib/errorMessage'
import { useAppStore } from './app'
import { useReviewStore } from './review'
import { useSyncStore } from './sync'

/** The team cache of the active account (docs/team.md): its pulls and the worker's state. */
export const useTeamStore = defineStore('team', () => {
  const status = ref<TeamStatus | null>(null)
  const progress = ref<TeamPullProgress | null>(null)
  const runId = ref<string | null>(null)
  const error = ref<AppErrorInfo | null>(null)
  const starting = ref(false)
  /** The app's own pulls: as of when, and when the next (also kept between status reads). */
  const schedule = ref<TeamSchedule | null>(null)
  /** The last pull that started over, and why (kept until the next pull starts over or is asked for). */
  const notice = ref<NonNullable<TeamPullProgress['noticeCode']> | null>(null)
  let unlisten: (() => void) | null = null
  let unlistenSchedule: (() => void) | null = null

  /** The schedule as the controller announces it; the status bar listens from start-up. */
  function watchSchedule(): void {
    unlistenSchedule ??= listen('team.schedule', (s) => {
      scheduleEvents++
      schedule.value = s
    })
  }
  /**
   * Announcements seen so far: a status read that was answered after an announcement carries
   * the schedule as it stood when the read began (a pull's end announces itself while the read
   * is still on its way), so it must not replace the newer one.
   */
  let scheduleEvents = 0
  /** Review changes saved here and not yet in the team cache. */
  const queue = ref<ReviewQueue | null>(null)
  /**
   * Bumped when a sync with the team cache brought review rows (a live notification, or a
   * pull): screens showing lists, assignments, progress or calibration rounds read again.
   */
  const reviewArrivals = ref(0)
  let unlistenQueue: (() => void) | null = null

  function subscribe(): void {
    unlistenQueue?.()
    unlistenQueue = listen('review.queue', (q) => {
      queue.value = q
      if ((q.arrived ?? 0) > 0) reviewArrivals.value++
      // Removals the team cache refused are undone already; the Review screen says so.
      if (q.refusedRemovals?.length) void useReviewStore().removalsRefused(q.refusedRemovals)
    })
    unlisten?.()
    unlisten = listen('team.progress', (p) => {
      if (runId.value !== null && p.runId !== runId.value) return
      progress.value = p
      runId.value = p.phase === 'pulling' ? p.runId : null
      if (p.noticeCode) notice.value = p.noticeCode
      if (p.phase !== 'pulling') {
        if (p.error && p.phase === 'failed') error.value = p.error
        void refresh()
        void useAppStore().refreshCache()
        // Pulled scopes (filters, coverage) show in the Sync screen's scope table.
        void useSyncStore().refresh()
      }
    })
  }

  async function refresh(): Promise<void> {
    try {
      const seen = scheduleEvents
      status.value = await call('team.status', {})
      if (seen === scheduleEvents) schedule.value = status.value.schedule
      queue.value = status.value.review ?? null
      const active = status.value.active
      if (active && active.phase === 'pulling') {
        progress.value = active
        runId.value = active.runId
      }
    } catch (e) {
      error.value = toErrorInfo(e)
    }
  }

  /** Starts a pull by `ask` (the pull itself, or a window that pulls to get there) and follows it. */
  async function startPull(ask: () => Promise<{ runId: string }>): Promise<void> {
    error.value = null
    notice.value = null
    starting.value = true
    try {
      const r = await ask()
      runId.value = r.runId
      progress.value = { runId: r.runId, phase: 'pulling', calls: 0, members: 0, batches: 0, totalCalls: 0, cursor: 0, callsPerSecond: 0 }
    } catch (e) {
      error.value = toErrorInfo(e)
    } finally {
      starting.value = false
    }
  }

  const pull = (): Promise<void> => startPull(() => call('team.pull', {}))

  /**
   * Holds the last `days` days (null: everything) from now on, and pulls to get there; with
   * `scopes`, only those worker scopes (null: every scope; a changed choice pulls anew).
   */
  const setWindow = (days: number | null, scopes?: string[] | null): Promise<void> =>
    startPull(() => call('team.window', { days, ...(scopes === undefined ? {} : { scopes }) }))

  async function cancel(): Promise<void> {
    if (!runId.value) return
    try {
      await call('team.cancel', { runId: runId.value })
    } catch (e) {
      error.value = toErrorInfo(e)
    }
  }

  return {
    status,
    progress,
    runId,
    error,
    starting,
    schedule,
    notice,
    queue,
    reviewArrivals,
    subscribe,
    watchSchedule,
    refresh,
    pull,
    setWindow,
    cancel
  }
})
