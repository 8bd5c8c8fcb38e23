import type pg from 'pg'
import { z } from 'zod'
import type { AppErrorInfo } from '../../shared/errors'
import type { CallCache } from '../cache'
import { CallsightError, isAbortError, toErrorInfo } from '../errors'
import { mapPgError, q, redactUrl } from './connection'
import { readGeneration, restoredNotice } from './generation'
import { checkPgSchema } from './pg-migrations'
import { boundHeapGrowth } from './heap-growth'
import { lastChange, readBatch, type BatchRead } from './pull-batch'
import { distinctApplied } from './pulled-rows'
import { chosenScopeIds, memberOf } from './pull-sql'
import { settleWindow } from './pull-window'
import { settleScopes } from './pull-scopes'
import { systemPullClock, type PullClock } from './window'
import type { TeamWindow } from '../../shared/team'

export { lastChange } from './pull-batch'

/**
 * A workstation's pull from the team cache: every row whose change number is above the
 * local cursor, in batches, each applied to the local SQLite cache in one transaction with
 * the cursor that follows it. No request reaches the service.
 *
 * Each batch is read in one REPEATABLE READ snapshot. Writers take the change numbers under
 * a lock in commit order (pg-store.ts), so what a snapshot shows below its highest number is
 * final: nothing numbered lower can appear later, and the cursor never skips a row.
 */
export interface PullOptions {
  pool: pg.Pool
  schema: string
  /** Shown to the user and stored beside the cursor; redacted of any password. */
  sourceLabel: string
  cache: CallCache
  /** Change numbers per batch (calls, memberships, scopes); default 2,000. */
  batchSize?: number
  signal?: AbortSignal
  onProgress?: (p: PullProgress) => void
  /** When the local cache was pulled from another team cache: empty it and pull anew. */
  startOver?: boolean
  /** Wall clock for rates; tests pass a fixed one. */
  now?: () => number
  /**
   * The window to hold (window.ts): the calls of the last N days, or everything (days null).
   * Unset: the window the cache holds already (everything for a cache never windowed).
   */
  window?: TeamWindow
  /** Where the window's "now" comes from; tests move it by days. */
  clock?: PullClock
  /**
   * A pull of at least this many calls into an empty cache builds the full-text index in a
   * worker thread beside the ingest and takes it in at the end (src/core/cache/ingest/deferred-index.ts);
   * other opens of the cache refuse it meanwhile. Unset: never (the app, which searches the
   * cache while it pulls). The CLI sets it.
   */
  deferIndexFrom?: number
}

export type PullPhase = 'pulling' | 'done' | 'cancelled' | 'failed'

/**
 * Where a pull's time went on the pulling thread, in seconds (the result of pullTeamCache
 * only, not its progress events): the CLI prints it with --json and the team bench logs it,
 * so a pull measured on a quiet machine says which part to work on next (docs/team.md).
 */
export interface PullTimings {
  /** Awaiting the next batch: the server still producing it, and node-postgres parsing and this module decoding its rows as they arrive. */
  read: number
  /** Applying batches to the local cache (one transaction each). */
  write: number
  /** Waiting for the index build's worker to catch up (a first bulk pull only). */
  indexWait: number
  /** The end: the index build finished and taken in, or the full-text segments merged. */
  end: number
}

export interface PullProgress {
  phase: PullPhase
  /**
   * Distinct calls new or changed that this pull applied. A call that travels ahead with a
   * membership and again in its own batch counts once.
   */
  calls: number
  /** Memberships applied. */
  members: number
  batches: number
  /** Calls to pull when the pull started (changed since the cursor). */
  totalCalls: number
  cursor: number
  callsPerSecond: number
  /** Rows refused for a value larger than a pull takes (pull-limits.ts): skipped, the rest pulled. */
  refused: number
  /** The first of those refusals, each naming the call, the field and its size. */
  refusals: AppErrorInfo[]
  /** Calls dropped locally for leaving the window (their review data stays). */
  dropped: number
  /** Calls brought in by widening the window. */
  backfilled: number
  /** Why the pull emptied what was pulled before and started over (a restored or reset team cache). */
  notice?: string
  /** The notice's reason as a code, for the app to say in its language. */
  noticeCode?: 'generation' | 'behind'
  /** The chosen worker scopes changed: what was pulled was emptied and the pull began anew. */
  rescoped?: boolean
  error?: AppErrorInfo
}

/** Refusals kept in the progress: the count says how many there were in all. */
const REFUSALS_SHOWN = 20

const MetaRow = z.object({ cache_id: z.string().min(1) })

/** Calls applied by one pull past which the full-text index is merged at its end. */
export const OPTIMIZE_AFTER = 20_000

/** Committed batches that may wait for the index build at once: each holds its rows' text (~1 MB). */
const BUILD_BACKLOG = 4

/** Where a pull starts: the team cache it reads and the change number above which it pulls. */
interface PullStart {
  cacheId: string
  generation: Awaited<ReturnType<typeof readGeneration>>
  cursor: number
  /** The window's start: calls dated before it are not pulled (null: all). */
  since: number | null
  /** The keys of the worker scopes the window holds (null: every scope). */
  scopes: string[] | null
}

/**
 * How a pull writes. A bulk pull writes one full-text segment per batch (fts-buffer.ts), reads
 * without the memory map (cache.bulk.bulkWriting) and bounds V8's heap growth (heap-growth.ts);
 * a deferred one builds the index in a worker beside the ingest; a small one keeps all three.
 */
interface PullMode {
  bulk: boolean
  deferred: boolean
  releaseHeap: (() => void) | null
}

/** Wall time of each step, added up (performance.now: monotonic, apart from the `now` option used for rates). */
class LapTimer {
  readonly timings: PullTimings = { read: 0, write: 0, indexWait: 0, end: 0 }
  private mark = performance.now()
  /** Starts timing the next step from now. */
  restart(): void {
    this.mark = performance.now()
  }
  /** Adds the time since the last mark to `part`. */
  lap(part: keyof PullTimings): void {
    const t = performance.now()
    this.timings[part] += (t - this.mark) / 1000
    this.mark = t
  }
}

/** The pull's progress and how it is reported: each event a copy, with the rate so far. */
class PullReport {
  readonly progress: PullProgress = {
    phase: 'pulling',
    calls: 0,
    members: 0,
    batches: 0,
    totalCalls: 0,
    cursor: 0,
    callsPerSecond: 0,
    refused: 0,
    refusals: [],
    dropped: 0,
    backfilled: 0
  }
  private readonly started: number
  constructor(
    private readonly now: () => number,
    private readonly onProgress?: (p: PullProgress) => void
  ) {
    this.started = now()
  }
  emit(): void {
    const secs = (this.now() - this.started) / 1000
    this.progress.callsPerSecond = secs > 0 ? this.progress.calls / secs : 0
    this.onProgress?.({ ...this.progress, refusals: [...this.progress.refusals] })
  }
}

/** Pulls until the local cache holds everything the team cache held when the last batch was read. */
export async function pullTeamCache(opts: PullOptions): Promise<PullProgress & { timings: PullTimings }> {
  // 2,000 keeps a batch's rows, records and FTS5's pending index small (resident memory
  // stays under 300 MB in a pull of 1,000,000 calls) at the cost of more, cheaper commits.
  const size = Math.max(100, opts.batchSize ?? 2000)
  const report = new PullReport(opts.now ?? Date.now, opts.onProgress)
  const { progress } = report
  const timer = new LapTimer()
  const mode: PullMode = { bulk: false, deferred: false, releaseHeap: null }
  try {
    const start = await findStart(opts, report)
    report.emit()
    await enterMode(opts, start.cursor, progress.totalCalls, mode)
    await pullBatches(opts, start, size, mode, report, timer)
    await finishIndex(opts.cache, mode, progress.calls, timer)
    progress.phase = 'done'
  } catch (e) {
    const cancelled = isAbortError(e) || opts.signal?.aborted === true
    progress.phase = cancelled ? 'cancelled' : 'failed'
    progress.error = cancelled
      ? { code: 'Cancelled', message: 'The pull was cancelled; the next pull continues where it stopped.' }
      : toErrorInfo(mapPgError(e))
  }
  await leaveMode(opts.cache, mode, progress.phase === 'done')
  report.emit()
  return { ...progress, timings: timer.timings }
}

/**
 * Start: checks the team cache's schema, reads which cache and generation it is, empties the
 * local cache when it was pulled from another one (asked for) or the team cache was restored,
 * and counts the calls to pull.
 */
async function findStart(opts: PullOptions, report: PullReport): Promise<PullStart> {
  const { pool, schema, cache } = opts
  const { progress } = report
  await checkPgSchema(pool, schema, 'reader')
  const meta = MetaRow.parse((await pool.query(`SELECT value AS cache_id FROM ${q(schema)}.meta WHERE key = 'cache_id'`)).rows[0])
  const generation = await readGeneration(pool, schema)
  // An unknown scope name is refused here, before anything local changes.
  const scopes = await settleScopes(pool, schema, cache, opts.window?.scopes)
  const local = cache.teamSource()
  if (local && local.cacheId !== meta.cache_id) {
    if (!opts.startOver) {
      throw new CallsightError('Storage', 'This cache was pulled from another team cache (or the team cache was set up anew).', {
        hint: 'Pull with --start-over to empty it and pull everything again.'
      })
    }
    cache.clear()
  }
  let cursor = local && local.cacheId === meta.cache_id ? local.cursor : 0
  const notice = local && local.cacheId === meta.cache_id ? await restoredNotice(local, generation, () => lastChange(pool, schema)) : null
  if (notice) {
    // Rows numbered below the cursor may be new since the restore: only everything again is exact.
    // Annotations stay (clear() keeps the user's review work).
    cache.clear()
    cursor = 0
    progress.notice = notice.message
    progress.noticeCode = notice.code
  }
  const choice = scopes.resolve()
  if (choice.restarted) {
    cursor = 0
    progress.rescoped = true
  }
  progress.cursor = cursor
  const since = await settleWindow({
    pool,
    schema,
    cache,
    cacheId: meta.cache_id,
    generation,
    source: redactUrl(opts.sourceLabel),
    cursor,
    size: Math.max(100, opts.batchSize ?? 2000),
    scopes: choice.keys,
    clock: opts.clock ?? systemPullClock,
    ...(opts.window === undefined ? {} : { window: opts.window }),
    ...(opts.signal === undefined ? {} : { signal: opts.signal }),
    onDropped: (n) => {
      progress.dropped += n
    },
    onBackfill: (calls, refused) => {
      progress.backfilled += calls
      noteRefused(progress, refused)
      report.emit()
    }
  })
  const count = await pool.query<{ n: string }>(
    `SELECT count(*) AS n FROM ${q(schema)}.calls c WHERE c.seq > $1 AND ($2::bigint IS NULL OR c.call_at >= $2)${memberOf(
      schema,
      chosenScopeIds(schema, choice.keys),
      Number.MAX_SAFE_INTEGER
    )}`,
    [cursor, since]
  )
  progress.totalCalls = Number(count.rows[0]?.n ?? 0)
  return { cacheId: meta.cache_id, generation, cursor, since, scopes: choice.keys }
}

/** Counts refused rows and keeps the first few for the report. */
function noteRefused(progress: PullProgress, refused: readonly CallsightError[]): void {
  progress.refused += refused.length
  for (const r of refused.slice(0, REFUSALS_SHOWN - progress.refusals.length)) progress.refusals.push(toErrorInfo(r))
}

/**
 * Mode: a pull into an empty cache of at least `deferIndexFrom` calls defers the index; one of
 * at least OPTIMIZE_AFTER calls writes in bulk. Each setting is recorded in `mode` as it is
 * made, so that leaveMode undoes what was set even when a later step throws. A pull killed
 * before leaves only a larger buffer (the map is the connection's, not the file's).
 */
async function enterMode(opts: PullOptions, cursor: number, totalCalls: number, mode: PullMode): Promise<void> {
  const { cache } = opts
  mode.deferred = opts.deferIndexFrom !== undefined && totalCalls >= opts.deferIndexFrom && cursor === 0 && cache.info().calls === 0
  if (mode.deferred) await cache.bulk.startIndexBuild()
  mode.bulk = !mode.deferred && totalCalls >= OPTIMIZE_AFTER
  if (mode.bulk) cache.bulk.bulkWriting(true)
  if (mode.bulk || mode.deferred) mode.releaseHeap = boundHeapGrowth()
}

/**
 * Batches: reads each batch above the cursor on one connection, asking for the next before
 * writing the current one (PostgreSQL reads it meanwhile), and applies it with its cursor.
 */
async function pullBatches(
  opts: PullOptions,
  start: PullStart,
  size: number,
  mode: PullMode,
  report: PullReport,
  timer: LapTimer
): Promise<void> {
  const { pool, schema, cache } = opts
  const { progress } = report
  const source = redactUrl(opts.sourceLabel)
  const client = await pool.connect()
  // A batch read ahead can fail while the pull awaits something else (the index build's
  // backlog): marked as heard at once, so that the failure is not an unhandled rejection
  // (which ends the process) before the loop's await takes it.
  const readAhead = (lo: number): Promise<BatchRead> => {
    const p = readBatch(client, schema, lo, size, start.since, start.scopes)
    p.catch(() => undefined)
    return p
  }
  const aheadApplied = new Set<string>()
  try {
    let next = readAhead(start.cursor)
    for (;;) {
      timer.restart()
      const batch: BatchRead = await next
      timer.lap('read')
      if (!batch) break
      if (opts.signal?.aborted) throw new CallsightError('Cancelled', 'The pull was cancelled.')
      next = readAhead(batch.cursor)
      const { refused, numbered, ...rows } = batch
      cache.writePulled({ ...rows, cacheId: start.cacheId, generation: start.generation, source })
      timer.lap('write')
      if (mode.deferred) {
        await cache.bulk.indexBuildDrain(BUILD_BACKLOG)
        timer.lap('indexWait')
      }
      progress.cursor = batch.cursor
      progress.batches++
      progress.calls += distinctApplied(batch.calls, numbered, aheadApplied)
      progress.members += batch.members.reduce((n, m) => n + m.callIds.length, 0)
      noteRefused(progress, refused)
      report.emit()
    }
    client.release()
  } catch (e) {
    // A batch still in flight is not waited for: the connection is dropped, not reused.
    client.release(true)
    throw e
  }
}

/**
 * End: each batch added a full-text segment; a pull that brought a large share of the cache
 * merges them into one (about a twentieth of the ingest time), a small one merges only its
 * small segments (settleIndexes).
 */
async function finishIndex(cache: CallCache, mode: PullMode, calls: number, timer: LapTimer): Promise<void> {
  timer.restart()
  if (mode.deferred) await cache.bulk.finishIndexBuild()
  else cache.settleIndex(calls)
  timer.lap('end')
}

/** Cleanup, whatever the outcome: the index build abandoned unless it finished, bulk writing and the heap bound undone. */
async function leaveMode(cache: CallCache, mode: PullMode, done: boolean): Promise<void> {
  if (mode.deferred && !done) {
    try {
      await cache.bulk.abortIndexBuild()
    } catch {
      // The next open of the cache finishes the index from the stored rows either way.
    }
  }
  if (mode.bulk) {
    try {
      cache.bulk.bulkWriting(false)
    } catch {
      // The cache was closed under the pull: the next bulk pull sets it again anyway.
    }
  }
  mode.releaseHeap?.()
}
