import { z } from 'zod'

/**
 * The slow full pass: the worker's incremental cycle re-reads only the look-back, so a call
 * the service changes later than that would never arrive. Each cycle therefore also re-reads
 * one slice of the scope's range, walking back from the look-back's start to the range's
 * start, sized so that the whole range is read once per `fullPassEvery` (a share of each
 * cycle's requests, not a full sync at once). Where it got is kept in the team cache
 * (`checkpoints`, the worker's own state, never pulled), so a restarted worker continues it.
 */
export const FullPassState = z.object({
  /** When this pass started; the next starts `fullPassEvery` later. */
  startedAt: z.number(),
  /** The slices below this instant are still to be read (down to the range's start). */
  cursor: z.number()
})
export type FullPassState = z.infer<typeof FullPassState>

/** The key its state is kept under beside the scope's own checkpoint. */
export const fullPassKey = (scopeKey: string): string => `${scopeKey}:full-pass`

/** The smallest slice worth a run of its own. */
const MIN_SLICE_MS = 60_000

export interface FullPassPlan {
  state: FullPassState
  /** The slice to read now; null when this pass is done and the next is not due yet. */
  slice: { from: number; to: number } | null
}

/**
 * What to read this cycle (pure). A new pass starts when none was or the last one is done and
 * `everyMs` has passed since it started; it begins at the look-back's start, which the
 * incremental run reads anyway.
 */
export function planFullPass(
  stored: unknown,
  range: { from: number; to: number },
  opts: { now: number; everyMs: number; intervalMs: number; lookbackMs: number }
): FullPassPlan {
  const parsed = FullPassState.safeParse(stored)
  let state = parsed.success ? parsed.data : null
  const done = (s: FullPassState): boolean => s.cursor <= range.from
  if (state === null || (done(state) && opts.now - state.startedAt >= opts.everyMs)) {
    state = { startedAt: opts.now, cursor: range.to - opts.lookbackMs }
  }
  const cursor = Math.min(state.cursor, range.to)
  if (cursor <= range.from) return { state, slice: null }
  const cycles = Math.max(1, Math.floor(opts.everyMs / Math.max(1, opts.intervalMs)))
  const sliceMs = Math.max(MIN_SLICE_MS, Math.ceil((range.to - range.from) / cycles))
  // Whole seconds: the service reads whole seconds.
  const from = Math.max(range.from, Math.floor((cursor - sliceMs) / 1000) * 1000)
  return { state: { ...state, cursor }, slice: { from, to: cursor } }
}
