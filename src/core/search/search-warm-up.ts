import type { SearchContext } from './search-context'

/**
 * Call ids read per step of a warm-up: at 10 items a call, a range of ~100,000 rows of the
 * items table (clustered by call), ~10–20 ms on a quiet machine. A request that arrives
 * meanwhile waits for one piece at most.
 */
export const WARM_PIECE = 10_000

/** A warm-up in the background; `done` settles when it finished or was stopped. */
export interface WarmUp {
  stop(): void
  readonly done: Promise<void>
}

/** When the next step runs: after the I/O already waiting (requests go first). */
export type Scheduler = (step: () => void) => void

const afterIo: Scheduler = (step) => void setImmediate(step)

/**
 * Reads in the background, a piece at a time between requests, what the first query of each
 * kind would otherwise read cold on a keystroke's path: the calls' quarter hours and date
 * order, then every analysis key's column (text keys as equals reads them, numeric keys as
 * ranges do). ~1 s per key at 1,000,000 calls if read whole in one go; the first `csat>=4`
 * and its count then find the column kept (issue 17 point 5). A first page does not need the
 * columns (it reads a window's items, columns.ts `valuesWithin`): this is for counts, facets
 * and deep pages, and every page after. Exact whatever happens meanwhile: a column is kept
 * only when every piece was read at one data version (columns.ts `valuesInPieces`).
 */
export function warmUp(ctx: SearchContext, schedule: Scheduler = afterIo): WarmUp {
  let stopped = false
  let finish!: () => void
  const done = new Promise<void>((resolve) => (finish = resolve))
  const steps = warmSteps(ctx)
  const next = (): void => {
    if (stopped) return finish()
    try {
      if (steps.next().done === true) return finish()
    } catch {
      // A warm-up that cannot read (the cache closed under it) ends; a request reads what it needs.
      return finish()
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

/** Each yield: one step's read done, a request may go next. */
function* warmSteps(ctx: SearchContext): Generator<void, void> {
  ctx.columns.quarters()
  yield
  ctx.columns.byDate()
  yield
  for (const key of ctx.catalog.analysisKeys()) {
    const step = ctx.columns.valuesInPieces(ctx.catalog.keyIds(key.key), key.numeric, WARM_PIECE)
    while (!step()) yield
    yield
  }
}
