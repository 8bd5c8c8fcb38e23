/**
 * Membership passes against the reference service, in the same run as a full sync with
 * analysis of the same range: 10 call types + answered + new requests + 2 directions over
 * 100,000 synced calls (quick: 20,000), at the time-scaled limit of the sync section. Reported:
 * the passes' requests against the full sync's (target ≤ 0.7×), their sustained pace as a
 * share of the limit (≥ 95 %), and 429s (0).
 */
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { createServiceClient, type CallsPage, type GetCallsParams } from '../src/core/client'
import { createAesGcmCipher } from '../src/core/crypto/aes-cipher'
import type { FetchLike } from '../src/core/platform'
import { MemoryStore, silentLogger, systemClock } from '../src/core/platform/node'
import { TenantRateLimiter } from '../src/core/ratelimit'
import { Session, TokenVault } from '../src/core/session'
import { runMembershipPasses, SyncEngine, type SyncSource } from '../src/core/sync'
import { DEFAULT_CATALOG } from '../src/reference-service/config'
import { FROM, limitFor, startBenchService, sustainedRate, TO, ZONE } from './sync'
import type { BenchFn, BenchRow } from './types'

const MARGIN_MS = 250

export const run: BenchFn = async (ctx) => {
  const calls = ctx.quick ? 20_000 : 100_000
  const LIMIT = limitFor(ctx.quick)
  const svc = await startBenchService(calls, LIMIT)
  const cache = openCache(join(ctx.workDir, 'memberships-bench.db'))
  try {
    let status429 = 0
    let sent = 0
    const fetcher: FetchLike = async (input, init) => {
      if (String(input).includes('get-calls')) sent++
      const res = await fetch(input, init)
      if (res.status === 429) status429++
      return res
    }
    const limiter = new TenantRateLimiter(LIMIT, { marginMs: MARGIN_MS })
    const client = createServiceClient({ baseUrl: svc.url, zone: ZONE, fetch: fetcher, limiter })
    const session = new Session({ client, vault: new TokenVault(new MemoryStore(), createAesGcmCipher(Buffer.alloc(32, 2)), 'bench') })
    await session.login('demo', 'demo')
    let arrivals: number[] = []
    const source: SyncSource = {
      getCalls: async (p: GetCallsParams, signal?: AbortSignal): Promise<CallsPage> => {
        const page = await session.getCalls(p, signal)
        arrivals.push(performance.now())
        return page
      }
    }
    cache.importCallTypes(DEFAULT_CATALOG.map((t) => ({ value: t.Value, description: t.Description })))
    const deps = { source, cache, clock: systemClock, logger: silentLogger, rateLimit: LIMIT }
    const range = { from: Date.parse(FROM), to: Date.parse(TO) + 1000 }

    const fullStart = performance.now()
    const full = await new SyncEngine(deps).run({ ...range, results: 'all', includeAnalysis: true }, { mode: 'full' })
    if (full.error) throw new Error(`sync failed: ${full.error.code} ${full.error.message}`)
    const fullSeconds = (performance.now() - fullStart) / 1000
    const fullSent = sent
    const full429 = status429
    ctx.log(`full sync with analysis: ${full.stored} calls, ${fullSent} requests in ${fullSeconds.toFixed(1)} s, ${full429} × 429`)

    // The limiter's window starts afresh, as it would after a pause between the two.
    await new Promise((r) => setTimeout(r, LIMIT.perSeconds * 1000 + MARGIN_MS))
    sent = 0
    status429 = 0
    arrivals = []
    const started = performance.now()
    const passes = await runMembershipPasses(deps, range)
    const seconds = (performance.now() - started) / 1000
    if (passes.error) throw new Error(`passes failed: ${passes.error.code} ${passes.error.message}`)
    arrivals.sort((x, y) => x - y)
    const rate = sustainedRate(arrivals, LIMIT.requests) ?? sent / seconds
    const share = (rate / (LIMIT.requests / LIMIT.perSeconds)) * 100
    ctx.log(
      `passes: ${passes.passes.length} passes, ${sent} requests in ${seconds.toFixed(1)} s, ${status429} × 429 (service ${svc.where})`
    )
    const rows: BenchRow[] = [
      {
        metric: `membership passes (10 types + answered + new requests + 2 directions) over ${calls} calls: requests vs a full sync with analysis`,
        value: sent / fullSent,
        unit: '×',
        baseline: fullSent,
        target: 0.7,
        targetKind: 'max',
        note: `${sent} requests against the full sync's ${fullSent}, same range, same run`
      },
      {
        metric: 'membership passes: sustained pace, share of the limit',
        value: share,
        unit: '%',
        target: 95,
        targetKind: 'min',
        note: 'whole limiter windows after the first burst; every page counts, short ones too'
      },
      { metric: '429 responses during the passes', value: status429, unit: 'count', baseline: full429, target: 0, targetKind: 'max' },
      { metric: `wall time of the passes over ${calls} calls`, value: seconds, unit: 's', baseline: fullSeconds }
    ]
    return { name: 'memberships', rows }
  } finally {
    cache.close()
    await svc.stop()
  }
}
