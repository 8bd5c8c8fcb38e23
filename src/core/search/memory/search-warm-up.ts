import type { SearchContext } from '../search-context'

/**
 * Call ids read per step of a warm-up: at 10 items a call, a range of ~100,000 rows of the
 * items table (clustered by call), ~10–20 ms on a quiet machine. A request that arrives
 * meanwhile waits for one piece at most.
 */
export const WARM_PIECE = 10_000

/** A warm-up in the background; `done` settles when it finished or was stopped: true when every column was kept. */
export interface WarmUp {
  stop(): void
  readonly done: Promise<boolean>
}

/** When the next step runs: after the I/O already waiting (requests go first). */
export type Scheduler = (step: () => void) => void

/** How long the search has had no request before a piece is read: a burst of typing meets none. */
export const WARM_IDLE_MS = 250

/**
 * Runs a step once the search has been asked nothing for `idleMs` (checked again when the
 * wait ends: a request may have come meanwhile), and then after the I/O already waiting.
 */
export function whenIdle(lastRequestAt: () => number, idleMs = WARM_IDLE_MS): Scheduler {
  const run: Scheduler = (step) => {
    const wait = idleMs - (performance.now() - lastRequestAt())
    // Unref'd: a warm-up waiting for a pause never keeps the process alive.
    if (wait > 0) setTimeout(() => run(step), wait).unref()
    else setImmediate(step)
  }
  return run
}

/**
 * Reads in the background, a piece at a time between requests, what the first query of each
 * kind would otherwise read cold on a keystroke's path: the calls' quarter hours and date
 * order, then every analysis key's column (text keys as equals reads them, numeric keys as
 * ranges do). ~1 s per key at 1,000,000 calls if read whole in one go; the first `csat>=4`
 * and its count then find the column kept instead of reading it on the keystroke's path. A first page does not need the
 * columns (it reads a window's items, columns.ts `valuesWithin`): this is for counts, facets
 * and deep pages, and every page after. Exact whatever happens meanwhile: a column is kept
 * only when every piece was read at one data version (columns.ts `valuesInPieces`).
 */
export function warmUp(ctx: SearchContext, schedule: Scheduler): WarmUp {
  let stopped = false
  let finish!: (complete: boolean) => void
  const done = new Promise<boolean>((resolve) => (finish = resolve))
  const steps = warmSteps(ctx)
  const next = (): void => {
    if (stopped) return finish(false)
    try {
      const r = steps.next()
      if (r.done === true) return finish(r.value)
    } catch {
      // A warm-up that cannot read (the cache closed under it) ends; a request reads what it needs.
      return finish(false)
    }
    schedule(next)
  }
  schedule(next)
  return {
    stop: () => {
      stopped = true
    },
    done
  }
}

/** Each yield: one step's read done, a request may go next. Returns whether every column was kept. */
function* warmSteps(ctx: SearchContext): Generator<void, boolean> {
  let complete = true
  ctx.columns.quarters()
  yield
  ctx.columns.byDate()
  yield
  // Each call's place in it: listed matches are put in date order with it (listed-order-page.ts).
  ctx.columns.dateRank()
  yield
  for (const key of ctx.catalog.analysisKeys()) {
    const step = ctx.columns.valuesInPieces(ctx.catalog.keyIds(key.key), key.numeric, WARM_PIECE)
    let r: ReturnType<typeof step>
    while ((r = step()) === 'reading') yield
    if (r === 'dropped') complete = false
    yield
  }
  return complete
}
