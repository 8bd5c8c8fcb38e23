/**
 * Membership passes against the reference service, in the same run as a full sync with
 * analysis of the same range: 10 call types + answered + new requests + 2 directions over
 * 100,000 synced calls (quick: 20,000), at the time-scaled limit of the sync section. Reported:
 * the passes' requests against the full sync's (target ≤ 0.7×), their sustained pace as a
 * share of the limit (≥ 95 %), and 429s (0) — for the passes run at once (PASS_CONCURRENCY)
 * and, as the baseline in the same run, one at a time as they ran before, each over its own
 * copy of the synced cache. Each run's trace says where the limiter was left idle
 * (membership-profile.ts), and a probe after them measures the service's own latency.
 */
import { join } from 'node:path'
import { openCache, type CallCache } from '../src/core/cache'
import { connectionOf } from '../src/core/cache/call-cache'
import { createServiceClient } from '../src/core/client'
import { createAesGcmCipher } from '../src/core/crypto/aes-cipher'
import type { FetchLike } from '../src/core/platform'
import { MemoryStore, silentLogger, systemClock } from '../src/core/platform/node'
import { TenantRateLimiter } from '../src/core/ratelimit'
import { Session, TokenVault } from '../src/core/session'
import { PASS_CONCURRENCY, runMembershipPasses, SyncEngine, type SyncEngineDeps } from '../src/core/sync'
import { DEFAULT_CATALOG } from '../src/reference-service/config'
import { describeProfile, PassTracer, type Profile } from './membership-profile'
import { FROM, limitFor, startBenchService, sustainedRate, TO, ZONE } from './sync'
import type { BenchFn, BenchRow } from './types'
import { median } from './types'

const MARGIN_MS = 250

interface PassesRun {
  requests: number
  seconds: number
  status429: number
  share: number
  profile: Profile
}

export const run: BenchFn = async (ctx) => {
  const calls = ctx.quick ? 20_000 : 100_000
  const LIMIT = limitFor(ctx.quick)
  const svc = await startBenchService(calls, LIMIT)
  const oldFile = join(ctx.workDir, 'memberships-bench-old.db')
  const newFile = join(ctx.workDir, 'memberships-bench-new.db')
  const caches: CallCache[] = [openCache(oldFile)]
  try {
    let status429 = 0
    let sent = 0
    const counting: FetchLike = async (input, init) => {
      if (String(input).includes('get-calls')) sent++
      const res = await fetch(input, init)
      if (res.status === 429) status429++
      return res
    }
    const tracer = new PassTracer()
    const limiter = new TenantRateLimiter(LIMIT, { marginMs: MARGIN_MS })
    const client = createServiceClient({ baseUrl: svc.url, zone: ZONE, fetch: tracer.fetch(counting), limiter })
    const session = new Session({ client, vault: new TokenVault(new MemoryStore(), createAesGcmCipher(Buffer.alloc(32, 2)), 'bench') })
    await session.login('demo', 'demo')
    let arrivals: number[] = []
    const source = tracer.source(async (p, signal) => {
      const page = await session.getCalls(p, signal)
      arrivals.push(performance.now())
      return page
    })
    const depsOf = (cache: CallCache): SyncEngineDeps => ({
      source,
      cache: cache.sync,
      clock: systemClock,
      logger: silentLogger,
      rateLimit: LIMIT
    })
    const range = { from: Date.parse(FROM), to: Date.parse(TO) + 1000 }
    const rest = (): Promise<void> => new Promise((r) => setTimeout(r, LIMIT.perSeconds * 1000 + MARGIN_MS))

    const oldCache = caches[0]!
    oldCache.importCallTypes(DEFAULT_CATALOG.map((t) => ({ value: t.Value, description: t.Description })))
    const fullStart = performance.now()
    const full = await new SyncEngine(depsOf(oldCache)).run({ ...range, results: 'all', includeAnalysis: true }, { mode: 'full' })
    if (full.error) throw new Error(`sync failed: ${full.error.code} ${full.error.message}`)
    const fullSeconds = (performance.now() - fullStart) / 1000
    const fullSent = sent
    const full429 = status429
    ctx.log(`full sync with analysis: ${full.stored} calls, ${fullSent} requests in ${fullSeconds.toFixed(1)} s, ${full429} × 429`)
    // Each way of running the passes starts from the same synced cache.
    connectionOf(oldCache).exec(`VACUUM INTO '${newFile.replaceAll("'", "''")}'`)
    const newCache = openCache(newFile)
    caches.push(newCache)

    const passes = async (cache: CallCache, concurrency: number, label: string, mode: 'full' | 'incremental'): Promise<PassesRun> => {
      // The limiter's window starts afresh, as it would after a pause between the two.
      await rest()
      sent = 0
      status429 = 0
      arrivals = []
      tracer.reset()
      const started = performance.now()
      const result = await runMembershipPasses(depsOf(cache), range, { concurrency, mode })
      const seconds = (performance.now() - started) / 1000
      if (result.error) throw new Error(`passes failed: ${result.error.code} ${result.error.message}`)
      arrivals.sort((x, y) => x - y)
      const rate = sustainedRate(arrivals, LIMIT.requests) ?? sent / seconds
      const share = (rate / (LIMIT.requests / LIMIT.perSeconds)) * 100
      const profile = tracer.profile(LIMIT.requests, LIMIT.perSeconds * 1000 + MARGIN_MS, MARGIN_MS / 10)
      ctx.log(
        `${label}: ${result.passes.length} passes, ${sent} requests in ${seconds.toFixed(1)} s, pace ${share.toFixed(1)} %, ${status429} × 429`
      )
      ctx.log(describeProfile(`  ${label}`, profile))
      return { requests: sent, seconds, status429, share, profile }
    }
    // Alternately, against the load's drift: each way over a cache without memberships, then
    // again in the other order over the other's cache, re-reading it all. The first run after
    // the full sync has been the slow one whichever way it ran: MEMBERSHIP_BENCH_FIRST=before
    // or =after says which goes first (before by default).
    const afterFirst = process.env.MEMBERSHIP_BENCH_FIRST === 'after'
    const runBefore = (cache: CallCache, round: number, mode: 'full' | 'incremental'): Promise<PassesRun> =>
      passes(cache, 1, `round ${round}, one pass at a time (before)`, mode)
    const runAfter = (cache: CallCache, round: number, mode: 'full' | 'incremental'): Promise<PassesRun> =>
      passes(cache, PASS_CONCURRENCY, `round ${round}, ${PASS_CONCURRENCY} passes at once`, mode)
    let before1: PassesRun, after1: PassesRun, before2: PassesRun, after2: PassesRun
    if (afterFirst) {
      after1 = await runAfter(oldCache, 1, 'incremental')
      before1 = await runBefore(newCache, 1, 'incremental')
      before2 = ctx.quick ? before1 : await runBefore(oldCache, 2, 'full')
      after2 = ctx.quick ? after1 : await runAfter(newCache, 2, 'full')
    } else {
      before1 = await runBefore(oldCache, 1, 'incremental')
      after1 = await runAfter(newCache, 1, 'incremental')
      after2 = ctx.quick ? after1 : await runAfter(oldCache, 2, 'full')
      before2 = ctx.quick ? before1 : await runBefore(newCache, 2, 'full')
    }
    const mean = (a: PassesRun, b: PassesRun, f: (r: PassesRun) => number): number => (f(a) + f(b)) / 2
    const before: PassesRun = {
      ...before1,
      share: mean(before1, before2, (r) => r.share),
      seconds: mean(before1, before2, (r) => r.seconds)
    }
    const after: PassesRun = { ...after1, share: mean(after1, after2, (r) => r.share), seconds: mean(after1, after2, (r) => r.seconds) }
    const ceiling = (LIMIT.perSeconds * 1000) / (LIMIT.perSeconds * 1000 + MARGIN_MS)
    const rounds = ctx.quick
      ? 'one round'
      : `rounds: ${after1.share.toFixed(1)} / ${after2.share.toFixed(1)} % at once, ${before1.share.toFixed(1)} / ${before2.share.toFixed(1)} % one at a time`

    // The service's own latency with nothing else of ours running: one page at a time.
    await rest()
    tracer.reset()
    for (let i = 0; i < 20; i++) {
      await source.getCalls({
        from: range.from,
        to: range.to,
        skip: i * 500,
        take: 500,
        ascending: false,
        sortColumn: 'start_time_dt',
        callTypes: [],
        direction: null,
        results: 'all',
        hasNewRequest: null,
        includeAnalysis: false
      })
    }
    const probe = tracer.traces.map((t) => t.answered! - t.sent!)
    const alone = median(probe)
    ctx.log(`service latency alone (20 pages of 500, one at a time): median ${alone.toFixed(0)} ms (service ${svc.where})`)

    const rows: BenchRow[] = [
      {
        metric: `membership passes (10 types + answered + new requests + 2 directions) over ${calls} calls: requests vs a full sync with analysis`,
        value: after.requests / fullSent,
        unit: '×',
        baseline: before.requests / fullSent,
        target: 0.7,
        targetKind: 'max',
        note: `${after.requests} requests (one at a time: ${before.requests}) against the full sync's ${fullSent}, same range, same run`
      },
      {
        metric: `membership passes, ${PASS_CONCURRENCY} at once: sustained pace, share of the limit`,
        value: after.share,
        unit: '%',
        baseline: before.share,
        target: 95,
        targetKind: 'min',
        note: `whole limiter windows after the first burst; every page counts, short ones too; baseline: one pass at a time; mean of the ${rounds}`
      },
      {
        metric: `membership passes, ${PASS_CONCURRENCY} at once: sustained pace, share of the client's own ceiling (the limit over its window plus the ${MARGIN_MS} ms margin)`,
        value: after.share / ceiling,
        unit: '%',
        baseline: before.share / ceiling,
        note: `the ceiling is ${(ceiling * 100).toFixed(1)} % of the limit`
      },
      {
        metric: 'limiter spacing while a request waited (send to next send), mean',
        value: after.profile.spacing.mean,
        unit: 'ms',
        baseline: before.profile.spacing.mean,
        note: `the schedule's interval is ${((LIMIT.perSeconds * 1000 + MARGIN_MS) / LIMIT.requests).toFixed(0)} ms; later than its tolerance: ${(after.profile.spacing.late * 100).toFixed(1)} % at once, ${(before.profile.spacing.late * 100).toFixed(1)} % one at a time (round 1)`
      },
      {
        metric: '429 responses during the passes',
        value: after.status429,
        unit: 'count',
        baseline: before.status429,
        target: 0,
        targetKind: 'max'
      },
      { metric: `wall time of the passes over ${calls} calls`, value: after.seconds, unit: 's', baseline: before.seconds },
      {
        metric: 'limiter idle with a free slot and no request waiting',
        value: idleSeconds(after.profile),
        unit: 's',
        baseline: idleSeconds(before.profile),
        note: `round 1; at once: ${idleNote(after.profile)}; one at a time: ${idleNote(before.profile)}`
      },
      {
        metric: 'service latency per page of 500 without analysis (send to answer), median',
        value: after.profile.latency.median,
        unit: 'ms',
        baseline: before.profile.latency.median,
        note: `round 1; one pass at a time: ${before.profile.latency.median.toFixed(0)} ms; alone, one page at a time after the passes: ${alone.toFixed(0)} ms; service ${svc.where}`
      }
    ]
    return { name: 'memberships', rows }
  } finally {
    for (const c of caches) c.close()
    await svc.stop()
  }
}

const idleSeconds = (p: Profile): number => Object.values(p.idleMs).reduce((a, b) => a + b, 0) / 1000

const idleNote = (p: Profile): string =>
  Object.entries(p.idleMs)
    .map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`)
    .join(', ')
