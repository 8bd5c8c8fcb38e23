import type { CallCache } from '../../core/cache'
import { CallsightError } from '../../core/errors'
import type { Logger } from '../../core/platform'
import { systemClock } from '../../core/platform/node'
import {
  cacheCounts,
  estimateMemberships,
  holdsEveryCall,
  membershipPasses,
  runMembershipPasses,
  type MembershipResult,
  type SyncMode
} from '../../core/sync'
import {
  DirectionSetting,
  describePass,
  type DirectionSetting as Direction,
  type MembershipEstimate,
  type MembershipProgress,
  type SyncOrder
} from '../../shared/domain'
import { parseList } from '../args'
import type { Connection } from '../connect'
import { ProgressBar, type Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'

/** `--directions 1,2` or with names: `--directions 1=Gelen,2=Giden`. */
export function parseDirections(raw: string | undefined): Direction[] | undefined {
  if (raw === undefined) return undefined
  const list = parseList(raw).map((item) => {
    const [value, ...name] = item.split('=')
    const n = Number(value)
    if (!Number.isInteger(n)) throw new CallsightError('InvalidInput', `--directions: "${item}" is not a whole number (N or N=name).`)
    return { value: n, name: name.join('=').trim() }
  })
  const parsed = DirectionSetting.array().safeParse(list)
  if (!parsed.success || new Set(list.map((d) => d.value)).size !== list.length) {
    throw new CallsightError('InvalidInput', '--directions: a comma list of distinct whole numbers, each optionally =name.')
  }
  return parsed.data
}

/** The scope the passes run over must hold every call: all types, all results, no other filter. */
export function requireEveryCall(scope: Parameters<typeof holdsEveryCall>[0]): void {
  if (!holdsEveryCall(scope)) {
    throw new CallsightError('InvalidInput', '--memberships learns filters over a sync of everything.', {
      hint: 'Use --results all and no --types, --direction or --has-new-request.'
    })
  }
}

/**
 * Refuses passes over a range no sync of everything covers in this cache: the passes learn
 * which cached calls belong to each filter; they do not fetch the calls' analysis.
 */
export function requireCachedRange(cache: CallCache, from: number, to: number): void {
  const covering = cache
    .scopes()
    .filter((s) => holdsEveryCall(s.filters))
    .some((s) => s.coverage.some(([a, b]) => a <= from && to <= b))
  if (!covering) {
    throw new CallsightError('InvalidInput', 'No sync of everything (--results all, no other filter) covers this range in the cache.', {
      hint: 'Sync it first: callsight sync … --results all --analysis --memberships'
    })
  }
}

export function estimateLine(e: MembershipEstimate): string {
  const minutes = Math.max(1, Math.ceil(e.seconds / 60))
  return `Membership passes (call types, answered, new requests, directions): ${e.passes} passes, about ${e.requests} requests, ${minutes} minute(s) at the tenant's limit (a full sync with analysis of the range: about ${e.fullSyncRequests} requests).`
}

/**
 * Runs the passes over [from, to) of a SQLite cache after printing the estimate, with a line
 * per pass and the progress bar (or JSON lines: the estimate, progress, the final state).
 */
export async function runMembershipsCli(opts: {
  cache: CallCache
  conn: Connection
  logger: Logger
  range: { from: number; to: number }
  directions?: Direction[]
  mode: SyncMode
  order: SyncOrder
  lookbackHours: number
  json: boolean
  io: Io
  signal: AbortSignal
}): Promise<MembershipResult> {
  const { cache, conn, io, json } = opts
  const passes = membershipPasses(cache.callTypes(), opts.directions)
  const estimate = await estimateMemberships(cacheCounts(cache), opts.range, passes, conn.rateLimit, {
    lookbackMs: opts.lookbackHours * 3_600_000,
    mode: opts.mode
  })
  if (json) io.out(`${jsonLine({ estimate })}\n`)
  else io.err(`${terminalLine(estimateLine(estimate))}\n`)
  const bar = new ProgressBar(io)
  let shown = 0
  let lastLine = 0
  const onProgress = (p: MembershipProgress): void => {
    if (json) {
      const now = Date.now()
      if (p.phase === 'running' && now - lastLine < 100) return
      lastLine = now
      io.out(`${jsonLine({ memberships: { ...p, sync: undefined } })}\n`)
      return
    }
    if (p.pass !== shown && p.current && p.phase === 'running') {
      bar.finish()
      shown = p.pass
      io.err(`${terminalLine(`Pass ${p.pass} of ${p.passes}: ${describePass(p.current)}`)}\n`)
    }
    if (p.sync) bar.update(p.sync)
  }
  const engineDeps = {
    source: conn.session,
    cache: cache.sync,
    clock: systemClock,
    logger: opts.logger,
    rateLimit: conn.rateLimit,
    lookbackHours: opts.lookbackHours,
    waits: conn.waits,
    pace: () => conn.limiter.status
  }
  const result = await runMembershipPasses(engineDeps, opts.range, {
    passes,
    mode: opts.mode,
    order: opts.order,
    signal: opts.signal,
    onProgress
  })
  bar.finish()
  if (json)
    io.out(`${jsonLine({ memberships: { phase: result.phase, requests: result.requests, stored: result.stored, error: result.error } })}\n`)
  else {
    for (const w of result.warnings) io.err(`warning: ${terminalLine(w)}\n`)
    const what =
      result.phase === 'done' ? 'Memberships done' : result.phase === 'cancelled' ? 'Memberships cancelled' : 'Memberships failed'
    io.out(`${what}: ${result.passes.length} of ${passes.length} passes, ${result.requests} requests, ${result.stored} calls read.\n`)
    if (result.error && result.error.code !== 'DenseSecond') io.err(`${terminalLine(result.error.message)}\n`)
  }
  return result
}
