import type { TeamWindow } from '../../shared/team'
import type { CallsightError } from '../errors'
import { runBackfill, type BackfillRun } from './pull-backfill'
import { backfillDone, planWindow, windowStart, type PullClock, type WindowState } from './window'

export interface WindowStep extends Omit<BackfillRun, 'onBatch'> {
  clock: PullClock
  /** The window asked for; undefined: the one the cache holds already. */
  window?: TeamWindow
  onDropped: (n: number) => void
  onBackfill: (calls: number, refused: CallsightError[]) => void
}

/**
 * Before a pull goes forward: the window's start now, the calls dated before it dropped, and
 * a widened window's missing stretch fetched (pull-backfill.ts). Returns the date from which
 * the forward pull takes calls (null: all).
 */
export async function settleWindow(step: WindowStep): Promise<number | null> {
  const { cache } = step
  const held = cache.teamWindow()
  const days = step.window === undefined ? held.days : step.window.days
  const target = windowStart(days, step.clock.now())
  const plan = planWindow(held, days, target, step.cursor)
  step.onDropped(cache.setTeamWindow(plan.state, plan.dropBefore))
  let state: WindowState = plan.state
  while (state.backfill) {
    state = await runBackfill({ ...step, onBatch: step.onBackfill }, state)
    state = backfillDone(state, target, step.cursor)
    cache.setTeamWindow(state, null)
  }
  return state.heldFrom
}
