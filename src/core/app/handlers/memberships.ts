import { planningProgress, syncEnded, type SyncProgress } from '../../../shared/domain'
import { CallsightError } from '../../errors'
import { cacheCounts, estimateMemberships, holdsEveryCall, membershipPasses, runMembershipPasses } from '../../sync'
import type { CallCache } from '../../cache'
import type { AccountRuntime } from '../account-runtime'
import type { AppState } from '../app-state'
import type { Handlers } from '../host-ports'

export type MembershipHandlers = Pick<Handlers, 'sync.membershipEstimate' | 'sync.memberships'>

const HOUR = 3_600_000

/** A sync of everything (all types, all results, no other filter) covers [from, to). */
export function everyCallCached(cache: CallCache, from: number, to: number): boolean {
  return cache
    .scopes()
    .filter((s) => holdsEveryCall(s.filters))
    .some((s) => s.coverage.some(([a, b]) => a <= from && to <= b))
}

/**
 * Membership passes from the app: the estimate the sync screen offers after a sync of
 * everything ("about N requests, M minutes"), and the run — a task of the same list as the
 * syncs, so one runs at a time and switching account cancels it. Each pass's progress is
 * published as a sync's (the sync screen's bar follows it), and the set's as its own event.
 */
export function membershipHandlers(state: AppState): MembershipHandlers {
  const { platform, syncs } = state

  function passesOf(rt: AccountRuntime) {
    return membershipPasses(rt.cache.callTypes(), state.settings().sync.directions)
  }

  return {
    'sync.membershipEstimate': async ({ from, to }) => {
      const rt = state.requireRuntime()
      if (rt.account.teamCache) throw new CallsightError('InvalidInput', 'A team cache account learns memberships from its worker.')
      const estimate = await estimateMemberships(cacheCounts(rt.cache), { from, to }, passesOf(rt), rt.account.rateLimit, {
        lookbackMs: state.settings().sync.lookbackHours * HOUR
      })
      return { estimate, cached: everyCallCached(rt.cache, from, to) }
    },

    'sync.memberships': async ({ from, to, mode }) => {
      const rt = state.requireSignedIn()
      if (!(from < to)) throw new CallsightError('InvalidInput', 'The start of the range must be before its end.')
      if (syncs.size > 0) throw new CallsightError('InvalidInput', 'A sync is already running. Wait for it or cancel it first.')
      const runId = syncs.start({ progress: null }, async (signal, id) => {
        await runMembershipPasses(
          {
            source: { getCalls: (params, sig) => state.connectivity.track(rt.session.getCalls(params, sig)) },
            cache: rt.cache.sync,
            clock: platform.clock,
            logger: platform.logger,
            rateLimit: rt.account.rateLimit,
            lookbackHours: state.settings().sync.lookbackHours,
            waits: state.waits,
            pace: () => rt.limiter.status
          },
          { from, to },
          {
            passes: passesOf(rt),
            mode,
            order: state.settings().sync.order,
            signal,
            runIdPrefix: id,
            onProgress: (p) => {
              // The sync screen follows one run: each pass's progress under the set's id, a
              // pass that ended shown as still fetching until the whole set has.
              const last = p.sync ?? syncs.get(id)?.progress ?? planningProgress(id, from, to)
              const phase = p.phase !== 'running' ? p.phase : syncEnded(last.phase) ? 'fetching' : last.phase
              const shown: SyncProgress = { ...last, runId: id, phase, stored: p.stored, requests: p.requests, etaSeconds: p.etaSeconds }
              const task = syncs.get(id)
              if (task) task.progress = shown
              rt.lastSync = shown
              platform.events.emit('sync.progress', shown)
              platform.events.emit('sync.membershipProgress', { ...p, runId: id })
            }
          }
        )
      })
      return { runId }
    }
  }
}
