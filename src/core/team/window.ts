/**
 * The window a workstation holds of the team cache (docs/team.md, "Windows"): the calls of
 * the last N days, counted back from the moment of each pull, so the start moves every day.
 * Pure arithmetic: the pull (pull.ts) asks `planWindow` what to drop and what to fetch, and
 * stores the answer with its batches.
 *
 * A bound of null is "no bound" (everything): it is below every date.
 */

import type { Backfill, WindowState } from '../cache'

export const DAY_MS = 86_400_000

/** The clock a pull reads its "now" from: tests move it by days. */
export interface PullClock {
  now(): number
}

export const systemPullClock: PullClock = { now: () => Date.now() }

/**
 * A cache's window (stored by the cache, sync-state/team-window.ts): it holds every call dated
 * from `heldFrom` on up to its cursor, but for a backfill's stretch still to fetch: calls dated
 * in [from, to) numbered at most `upTo`, fetched in change-number order past `after`.
 */
export type { Backfill, WindowState }

export const EVERYTHING: WindowState = { days: null, heldFrom: null, backfill: null }

/** The window's first instant at `now`: `days` whole days back; null for everything. */
export function windowStart(days: number | null, now: number): number | null {
  return days === null ? null : now - days * DAY_MS
}

/** a < b, where null is below every date. */
export function below(a: number | null, b: number | null): boolean {
  if (a === null) return b !== null
  return b !== null && a < b
}

/** The larger of two bounds (null the smallest). */
function higher(a: number | null, b: number | null): number | null {
  return below(a, b) ? b : a
}

export interface WindowPlan {
  /** Drop every call dated before this (null: nothing to drop). */
  dropBefore: number | null
  /** The state once dropped, with a backfill to run when the window widened. */
  state: WindowState
}

/**
 * What a pull does with the window before it pulls forward, given what the cache holds, the
 * window's start now (`target`) and the cache's cursor:
 * - calls dated before the target leave: dropped, and a backfill under way shrinks to the target;
 * - a target below what is held starts a backfill of [target, held) up to the cursor.
 * A cache that never pulled (cursor 0) holds nothing: it starts at the target.
 */
export function planWindow(held: WindowState, days: number | null, target: number | null, cursor: number): WindowPlan {
  if (cursor === 0) return { dropBefore: target, state: { days, heldFrom: target, backfill: null } }
  let { heldFrom, backfill } = held
  const low = backfill ? backfill.from : heldFrom
  const dropBefore = below(low, target) ? target : null
  if (dropBefore !== null) {
    heldFrom = higher(heldFrom, target)
    if (backfill) {
      const from = higher(backfill.from, target)
      backfill = from !== null && from >= backfill.to ? null : { ...backfill, from }
    }
  }
  return { dropBefore, state: widened({ days, heldFrom, backfill }, target, cursor) }
}

/** Once a backfill is fetched: held from its start on, and a further widening begun when the target is lower still. */
export function backfillDone(state: WindowState, target: number | null, cursor: number): WindowState {
  if (!state.backfill) return state
  return widened({ days: state.days, heldFrom: state.backfill.from, backfill: null }, target, cursor)
}

function widened(state: WindowState, target: number | null, cursor: number): WindowState {
  if (state.backfill || !below(target, state.heldFrom)) return state
  return { ...state, backfill: { from: target, to: state.heldFrom!, upTo: cursor, after: 0 } }
}
