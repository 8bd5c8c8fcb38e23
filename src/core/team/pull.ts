import type pg from 'pg'
import { z } from 'zod'
import { CallType, ScopeStatus } from '../../shared/domain'
import type { AppErrorInfo } from '../../shared/errors'
import type { CallCache, PulledBatch } from '../cache'
import { Intervals } from '../cache/coverage'
import { CallsightError, isAbortError, toErrorInfo } from '../errors'
import { mapPgError, q, redactUrl } from './connection'
import { readGeneration, restoredNotice } from './generation'
import { checkPgSchema } from './pg-migrations'
import { boundHeapGrowth } from './heap-growth'
import { CALL_CAPS, oversizedCall, PULL_LIMITS } from './pull-limits'
import { distinctApplied, pulledCall, type PulledCall } from './pulled-rows'

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
   * A pull of at least this many calls into an empty cache builds the full-text index in a
   * worker thread beside the ingest and takes it in at the end (src/core/cache/deferred-index.ts);
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
  /** Why the pull emptied what was pulled before and started over (a restored or reset team cache). */
  notice?: string
  /** The notice's reason as a code, for the app to say in its language. */
  noticeCode?: 'generation' | 'behind'
  error?: AppErrorInfo
}

/** Refusals kept in the progress: the count says how many there were in all. */
const REFUSALS_SHOWN = 20

/** A bigint column (node-postgres gives text) as a safe whole number. */
export const Int8 = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const n = Number(v)
  if (!Number.isSafeInteger(n)) {
    ctx.addIssue({ code: 'custom', message: 'not a whole number' })
    return z.NEVER
  }
  return n
})

const Bytes = Int8
const ScopeRow = z.object({
  scope_key: z.string().nullable(),
  scope_key_bytes: Bytes,
  filters: z.string().nullable(),
  filters_bytes: Bytes,
  coverage: z.string().nullable(),
  coverage_bytes: Bytes,
  last_success_at: Int8.nullable(),
  whole: z.union([z.boolean(), z.literal('t'), z.literal('f')]).transform((v) => v === true || v === 't')
})
const MemberRow = z.object({ scope_key: z.string(), call_id: z.string(), refused: z.boolean() })
const TypeRow = z.object({ value: z.string().nullable(), value_bytes: Bytes, description: z.string().nullable(), description_bytes: Bytes })

/** The refusal of a call row with a value larger than the pull takes, else null. */
function oversizedField(raw: unknown): CallsightError | null {
  const row = raw as Record<string, unknown>
  const id = typeof row['call_id'] === 'string' ? row['call_id'] : '?'
  const idBytes = Number(row['call_id_bytes'])
  if (idBytes > CALL_ID_BYTES) return oversizedCall(id, 'call id', idBytes, CALL_ID_BYTES)
  for (const [col, field] of CALL_CAPS) {
    const bytes = Number(row[`${col}_bytes`])
    if (bytes > PULL_LIMITS[field]) return oversizedCall(id, col, bytes, PULL_LIMITS[field])
  }
  return null
}
const MetaRow = z.object({ cache_id: z.string().min(1) })

/** Calls applied by one pull past which the full-text index is merged at its end. */
export const OPTIMIZE_AFTER = 20_000

/** Committed batches that may wait for the index build at once: each holds its rows' text (~1 MB). */
const BUILD_BACKLOG = 4

/** A call id longer than this is refused (the id is sent cut to it, for the message). */
const CALL_ID_BYTES = 1024

/**
 * A call's columns, each capped value sent as NULL when larger than the pull takes, with its
 * size beside it (`<column>_bytes`): an oversized value never crosses the wire.
 * octet_length reads a stored value's size from its header, without reading the value.
 */
const CALL_COLUMNS = [
  `CASE WHEN octet_length(c.call_id) > ${CALL_ID_BYTES} THEN left(c.call_id, 100) ELSE c.call_id END AS call_id`,
  `octet_length(c.call_id) AS call_id_bytes`,
  'c.call_at',
  ...CALL_CAPS.flatMap(([col, field]) => [
    `CASE WHEN octet_length(c.${col}) > ${PULL_LIMITS[field]} THEN NULL ELSE c.${col} END AS ${col}`,
    `octet_length(c.${col}) AS ${col}_bytes`
  ]),
  'c.seq'
].join(', ')

/** A scope key longer than this stops the pull (its memberships cannot be applied without it). */
const SCOPE_KEY_BYTES = 1024

/** A text column sent as NULL when larger than `limit` bytes, its size beside it. */
function cappedText(col: string, limit: number): string {
  return `CASE WHEN octet_length(${col}) > ${limit} THEN NULL ELSE ${col} END AS ${col}, octet_length(${col}) AS ${col}_bytes`
}

/** Whether call `c` has a value larger than the pull takes (an SQL condition). */
const CALL_OVERSIZED = [
  `octet_length(c.call_id) > ${CALL_ID_BYTES}`,
  ...CALL_CAPS.map(([col, field]) => `coalesce(octet_length(c.${col}) > ${PULL_LIMITS[field]}, false)`)
].join(' OR ')

/** The bytes call `c` sends (its oversized values count nothing: they are not sent). */
const CALL_BYTES = CALL_CAPS.map(
  ([col, field]) => `coalesce(CASE WHEN octet_length(c.${col}) > ${PULL_LIMITS[field]} THEN 0 ELSE octet_length(c.${col}) END, 0)`
).join(' + ')

/**
 * The change number before the first of `rows` (seq, bytes; ordered by seq) at which the bytes
 * added up pass the batch's budget, but never below the first row's: NULL when they stay
 * within it.
 */
function budgetEnd(rows: string): string {
  return `(SELECT CASE WHEN max(total) > ${PULL_LIMITS.batchBytes} THEN greatest(min(seq) FILTER (WHERE total > ${PULL_LIMITS.batchBytes}) - 1, min(seq)) END
    FROM (SELECT seq, sum(bytes) OVER (ORDER BY seq) AS total FROM (${rows}) w) t)`
}

/**
 * One batch above `lo` as one simple-protocol request: a REPEATABLE READ READ ONLY
 * transaction whose statements all see one snapshot. The batch's upper bound is kept in a
 * transaction-local setting: the size-th change number above lo in calls or in memberships,
 * whichever comes first (index probes), else the last number of any table.
 *
 * One request per batch is what lets the next batch be asked for before the current one is
 * written: the server reads it while this process is busy in SQLite. `lo` and `size` are
 * whole numbers we computed, written into the text (no user input reaches it).
 */
function batchSql(schema: string, lo: number, size: number): string {
  if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(size)) throw new Error('batch bounds must be whole numbers')
  const s = q(schema)
  const kth = (table: string): string => `(SELECT seq FROM ${s}.${table} WHERE seq > ${lo} ORDER BY seq OFFSET ${size - 1} LIMIT 1)`
  const last = lastChangeSql(schema)
  // The batch also ends before its calls' bytes pass the budget: those numbered in it, and
  // those its memberships carry along (counted whatever their number: an overestimate).
  const callBudget = budgetEnd(`SELECT c.seq, ${CALL_BYTES} AS bytes FROM ${s}.calls c WHERE c.seq > ${lo} ORDER BY c.seq LIMIT ${size}`)
  const memberBudget = budgetEnd(
    `SELECT m.seq, coalesce((SELECT ${CALL_BYTES} FROM ${s}.calls c WHERE c.call_id = m.call_id), 0) AS bytes FROM ${s}.scope_members m WHERE m.seq > ${lo} ORDER BY m.seq LIMIT ${size}`
  )
  const hi = `current_setting('callsight.hi')::bigint`
  return `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SELECT set_config('callsight.hi', coalesce(least(${kth('calls')}, ${kth('scope_members')}, ${callBudget}, ${memberBudget}), ${last}, ${lo})::text, true) AS hi;
SELECT ${CALL_COLUMNS} FROM ${s}.calls c WHERE c.seq > ${lo} AND c.seq <= ${hi} ORDER BY c.seq;
SELECT s.scope_key, m.call_id, coalesce(${CALL_OVERSIZED}, false) AS refused FROM ${s}.scope_members m JOIN ${s}.scopes s ON s.id = m.scope_id
  LEFT JOIN ${s}.calls c ON c.call_id = m.call_id WHERE m.seq > ${lo} AND m.seq <= ${hi};
SELECT DISTINCT ON (c.call_id) ${CALL_COLUMNS} FROM ${s}.scope_members m
  CROSS JOIN LATERAL (SELECT * FROM ${s}.calls c WHERE c.call_id = m.call_id AND c.seq > ${hi}) c
  WHERE m.seq > ${lo} AND m.seq <= ${hi};
SELECT ${cappedText('scope_key', SCOPE_KEY_BYTES)}, ${cappedText('filters', PULL_LIMITS.scopeJson)}, ${cappedText('coverage', PULL_LIMITS.scopeJson)},
  last_success_at, seq, seq <= ${hi} AS whole FROM ${s}.scopes
  WHERE (seq > ${lo} AND seq <= ${hi}) OR (seq > ${hi} AND id IN (SELECT scope_id FROM ${s}.scope_members WHERE seq > ${lo} AND seq <= ${hi}));
SELECT ${cappedText('value', CALL_ID_BYTES)}, ${cappedText('description', PULL_LIMITS.callTypeDescription)} FROM ${s}.call_types WHERE seq > ${lo} AND seq <= ${hi};
COMMIT;`
}

/** The team cache's last change number: the highest of every numbered table (null when empty). */
function lastChangeSql(schema: string): string {
  const s = q(schema)
  return `greatest((SELECT max(seq) FROM ${s}.calls), (SELECT max(seq) FROM ${s}.scope_members), (SELECT max(seq) FROM ${s}.scopes), (SELECT max(seq) FROM ${s}.call_types))`
}

/** The change number a pull that ends now would reach (what `pull` prints as "at change …"). */
export async function lastChange(pool: pg.Pool, schema: string): Promise<number> {
  const r = await pool.query<{ s: string | null }>(`SELECT ${lastChangeSql(schema)} AS s`)
  return Int8.parse(r.rows[0]?.s ?? 0)
}

type BatchRead =
  | (Omit<PulledBatch, 'cacheId' | 'source' | 'generation'> & {
      refused: CallsightError[]
      /** How many of `calls`, from the first, are numbered in the batch (the rest travel ahead). */
      numbered: number
    })
  | null

/**
 * Sends the batch's request at once (the client is idle: node-postgres writes it to the
 * socket before this returns) and parses the answer when it comes.
 */
function readBatch(c: pg.ClientBase, schema: string, lo: number, size: number): Promise<BatchRead> {
  const sent = c.query(batchSql(schema, lo, size)) as unknown as Promise<pg.QueryResult[]>
  return sent.then((results) => {
    const [, top, calls, members, ahead, scopes, types] = results
    const hi = Number(z.string().parse(top!.rows[0]!.hi))
    if (!(hi > lo)) return null
    // A membership can be older than its call's last change: the call then travels with it,
    // in its current state (the later batch that numbers it applies it again, unchanged).
    // A call with a value larger than the pull takes is refused, with its memberships (the
    // members query flags them): the rest of the batch, and the cursor, go on exactly.
    const refused: CallsightError[] = []
    const take = (rows: unknown[]): PulledCall[] => {
      const out: PulledCall[] = []
      for (const raw of rows) {
        const over = oversizedField(raw)
        if (over) refused.push(over)
        else out.push(pulledCall(raw))
      }
      return out
    }
    const own = take(calls!.rows)
    const pulled = [...own, ...take(ahead!.rows)]
    const byScope = new Map<string, string[]>()
    for (const raw of members!.rows) {
      const m = MemberRow.parse(raw)
      if (m.refused) continue
      let list = byScope.get(m.scope_key)
      if (!list) byScope.set(m.scope_key, (list = []))
      list.push(m.call_id)
    }
    return {
      cursor: hi,
      calls: pulled,
      numbered: own.length,
      refused,
      members: [...byScope].map(([scopeKey, callIds]) => ({ scopeKey, callIds })),
      // Scopes numbered in the batch come whole; those its memberships name but numbered
      // later (their coverage moved on since) by their filters only, coverage with their batch.
      scopes: scopes!.rows.map((raw) => {
        const r = ScopeRow.parse(raw)
        for (const [field, bytes, limit] of [
          ['scope_key', r.scope_key_bytes, SCOPE_KEY_BYTES],
          ['filters', r.filters_bytes, PULL_LIMITS.scopeJson],
          ['coverage', r.coverage_bytes, PULL_LIMITS.scopeJson]
        ] as const) {
          if (bytes > limit) {
            throw new CallsightError(
              'Storage',
              `The team cache sent a scope whose ${field} is ${bytes} bytes, more than the ${limit} a pull takes.`,
              {
                hint: 'Ask whoever administers the team cache to check its scopes; the pull stopped before that change.'
              }
            )
          }
        }
        return {
          scopeKey: z.string().parse(r.scope_key),
          filters: ScopeStatus.shape.filters.parse(JSON.parse(z.string().parse(r.filters))),
          coverage: r.whole ? Intervals.parse(JSON.parse(z.string().parse(r.coverage))) : [],
          lastSuccessAt: r.whole ? r.last_success_at : null
        }
      }),
      callTypes: types!.rows.flatMap((raw) => {
        const t = TypeRow.parse(raw)
        if (t.value_bytes > CALL_ID_BYTES || t.description_bytes > PULL_LIMITS.callTypeDescription) {
          const big = t.value_bytes > CALL_ID_BYTES
          refused.push(
            new CallsightError(
              'Storage',
              `The team cache's call type ${JSON.stringify((t.value ?? '').slice(0, 200))} was not pulled: its ${big ? 'value' : 'description'} is ${big ? t.value_bytes : t.description_bytes} bytes, more than a pull takes.`
            )
          )
          return []
        }
        return [CallType.parse(t)]
      })
    }
  })
}

/** Pulls until the local cache holds everything the team cache held when the last batch was read. */
export async function pullTeamCache(opts: PullOptions): Promise<PullProgress & { timings: PullTimings }> {
  const { pool, schema, cache } = opts
  // 2,000 keeps a batch's rows, records and FTS5's pending index small (resident memory
  // stays under 300 MB in a pull of 1,000,000 calls) at the cost of more, cheaper commits.
  const size = Math.max(100, opts.batchSize ?? 2000)
  const now = opts.now ?? Date.now
  const started = now()
  const progress: PullProgress = {
    phase: 'pulling',
    calls: 0,
    members: 0,
    batches: 0,
    totalCalls: 0,
    cursor: 0,
    callsPerSecond: 0,
    refused: 0,
    refusals: []
  }
  const emit = (): void => {
    const secs = (now() - started) / 1000
    progress.callsPerSecond = secs > 0 ? progress.calls / secs : 0
    opts.onProgress?.({ ...progress, refusals: [...progress.refusals] })
  }
  let bulk = false
  let deferred = false
  let releaseHeap: (() => void) | null = null
  const timings: PullTimings = { read: 0, write: 0, indexWait: 0, end: 0 }
  // Wall time of each step, added up (performance.now: monotonic, apart from the `now` option used for rates).
  let mark = performance.now()
  const lap = (part: keyof PullTimings): void => {
    const t = performance.now()
    timings[part] += (t - mark) / 1000
    mark = t
  }
  try {
    await checkPgSchema(pool, schema, 'reader')
    const meta = MetaRow.parse((await pool.query(`SELECT value AS cache_id FROM ${q(schema)}.meta WHERE key = 'cache_id'`)).rows[0])
    const generation = await readGeneration(pool, schema)
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
    progress.cursor = cursor
    const count = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(schema)}.calls WHERE seq > $1`, [cursor])
    progress.totalCalls = Number(count.rows[0]?.n ?? 0)
    emit()
    const source = redactUrl(opts.sourceLabel)
    // A bulk pull writes one full-text segment per batch (fts-buffer.ts), reads without the
    // memory map (CallCache.bulkWriting) and bounds V8's heap growth (heap-growth.ts); a small
    // one keeps all three. Restored at the end; a pull killed before leaves only a larger
    // buffer (the map is the connection's, not the file's).
    deferred = opts.deferIndexFrom !== undefined && progress.totalCalls >= opts.deferIndexFrom && cursor === 0 && cache.info().calls === 0
    if (deferred) await cache.startIndexBuild()
    bulk = !deferred && progress.totalCalls >= OPTIMIZE_AFTER
    if (bulk) cache.bulkWriting(true)
    if (bulk || deferred) releaseHeap = boundHeapGrowth()
    const client = await pool.connect()
    // A batch read ahead can fail while the pull awaits something else (the index build's
    // backlog): marked as heard at once, so that the failure is not an unhandled rejection
    // (which ends the process) before the loop's await takes it.
    const readAhead = (lo: number): Promise<BatchRead> => {
      const p = readBatch(client, schema, lo, size)
      p.catch(() => undefined)
      return p
    }
    let next: Promise<BatchRead> | null = null
    const aheadApplied = new Set<string>()
    try {
      next = readAhead(cursor)
      for (;;) {
        mark = performance.now()
        const batch: BatchRead = await next
        lap('read')
        next = null
        if (!batch) break
        if (opts.signal?.aborted) throw new CallsightError('Cancelled', 'The pull was cancelled.')
        // Ask for the next batch before writing this one: PostgreSQL reads it meanwhile.
        next = readAhead(batch.cursor)
        const { refused, numbered, ...rows } = batch
        cache.writePulled({ ...rows, cacheId: meta.cache_id, generation, source })
        lap('write')
        if (deferred) {
          await cache.indexBuildDrain(BUILD_BACKLOG)
          lap('indexWait')
        }
        cursor = batch.cursor
        progress.cursor = cursor
        progress.batches++
        progress.calls += distinctApplied(batch.calls, numbered, aheadApplied)
        progress.members += batch.members.reduce((n, m) => n + m.callIds.length, 0)
        progress.refused += refused.length
        for (const r of refused.slice(0, REFUSALS_SHOWN - progress.refusals.length)) progress.refusals.push(toErrorInfo(r))
        emit()
      }
      client.release()
    } catch (e) {
      // A batch still in flight is not waited for: the connection is dropped, not reused.
      client.release(true)
      throw e
    }
    // Each batch added a full-text segment; after a bulk pull they are merged once (about a
    // twentieth of the ingest time). Small pulls leave it to FTS5's automatic merging.
    mark = performance.now()
    if (deferred) await cache.finishIndexBuild()
    else if (progress.calls >= OPTIMIZE_AFTER) cache.optimizeIndex()
    lap('end')
    progress.phase = 'done'
  } catch (e) {
    const cancelled = isAbortError(e) || opts.signal?.aborted === true
    progress.phase = cancelled ? 'cancelled' : 'failed'
    progress.error = cancelled
      ? { code: 'Cancelled', message: 'The pull was cancelled; the next pull continues where it stopped.' }
      : toErrorInfo(mapPgError(e))
  }
  if (deferred && progress.phase !== 'done') {
    try {
      await cache.abortIndexBuild()
    } catch {
      // The next open of the cache finishes the index from the stored rows either way.
    }
  }
  if (bulk) {
    try {
      cache.bulkWriting(false)
    } catch {
      // The cache was closed under the pull: the next bulk pull sets it again anyway.
    }
  }
  releaseHeap?.()
  emit()
  return { ...progress, timings }
}
