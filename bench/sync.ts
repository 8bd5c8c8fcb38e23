/**
 * Sync throughput against the reference service at a time-scaled rate limit (60 requests per
 * 10 s instead of per 60 s; quick: 15 per 5 s). The ceiling is what the limit allows: requests per second times
 * the page size. Our engine (tenant limiter, prefetch, one transaction per page) syncs the
 * whole range into a real SQLite file; the baseline is a naive client measured in the same
 * run on a fresh service: take 100, sequential, no limiter, waiting only when it gets a 429.
 *
 * The sustained rate is measured over whole limiter windows after the first one: the first
 * window's burst (a full bucket at the start) would otherwise flatter any short run.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { openCache } from '../src/core/cache'
import { createServiceClient, type CallsPage, type GetCallsParams } from '../src/core/client'
import { createAesGcmCipher } from '../src/core/crypto/aes-cipher'
import { MemoryStore, silentLogger, systemClock } from '../src/core/platform/node'
import { TenantRateLimiter } from '../src/core/ratelimit'
import { Session, TokenVault } from '../src/core/session'
import { SyncEngine, type SyncSource, type SyncStore } from '../src/core/sync'
import { MAX_TAKE } from '../src/shared/service-limits'
import { startService } from '../src/reference-service'
import type { FetchLike } from '../src/core/platform'
import type { RateLimit } from '../src/shared/domain'
import type { BenchFn, BenchRow } from './types'
import { connectionOf } from '../src/core/cache/call-cache'

const FULL_LIMIT: RateLimit = { requests: 60, perSeconds: 10 }
const QUICK_LIMIT: RateLimit = { requests: 15, perSeconds: 5 }
/**
 * The limiter counts departures, the service arrivals; a page queued behind others at the
 * service is admitted later than it was sent. 250 ms of margin covers that on a loaded
 * 2-core machine; on the real 60 s window it costs 0.4% of the ceiling, here 2.4%.
 */
const MARGIN_MS = 250
export const FROM = '2026-01-01T00:00:00Z'
export const TO = '2026-01-31T00:00:00Z'
export const ZONE = 'Europe/Istanbul'

/** How the service counts the tenant's limit (`--rate-window`); its default is sliding. */
export interface BenchWindow {
  kind: 'fixed' | 'sliding' | 'bucket'
  burst?: number
}

export interface Service {
  url: string
  where: 'process' | 'in-process'
  stop(): Promise<void>
}

/**
 * The service runs in its own process when its bundle is built (npm run bench builds it):
 * a real service is remote, and in-process it would take the engine's CPU on this 2-core
 * machine. Without the bundle it runs in-process, and the row says so.
 */
export async function startBenchService(
  calls: number,
  LIMIT: RateLimit,
  window?: BenchWindow,
  range: { from: string; to: string } = { from: FROM, to: TO }
): Promise<Service> {
  const bundle = process.env.CALLSIGHT_SERVICE_BUNDLE ?? join(process.cwd(), 'out', 'node', 'service.mjs')
  const args = [
    '--calls',
    String(calls),
    '--seed',
    '9',
    '--from',
    range.from,
    '--to',
    range.to,
    '--tz',
    ZONE,
    '--rate-limit',
    `${LIMIT.requests}/${LIMIT.perSeconds}`,
    '--quiet'
  ]
  if (window) args.push('--rate-window', window.kind, ...(window.burst ? ['--rate-burst', String(window.burst)] : []))
  if (!existsSync(bundle)) {
    const svc = await startService({
      port: 0,
      calls,
      seed: 9,
      from: range.from,
      to: range.to,
      tz: ZONE,
      rateLimit: LIMIT,
      rateWindow: window?.kind,
      rateBurst: window?.burst,
      quiet: true
    })
    return { url: svc.url, where: 'in-process', stop: () => svc.stop() }
  }
  const child: ChildProcess = spawn(process.execPath, [bundle, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! })
    lines.once('line', (l) => resolve(l.trim()))
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}`)))
  })
  return {
    url,
    where: 'process',
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      })
  }
}

/** Counts the 429s a client receives. */
function counting(): { fetch: FetchLike; status429: () => number } {
  let n = 0
  return {
    fetch: async (input, init) => {
      const res = await fetch(input, init)
      if (res.status === 429) n++
      return res
    },
    status429: () => n
  }
}

/** Requests per second over whole windows after the first burst, from response times. */
function sustainedRate(arrivals: number[], perWindow: number): number | null {
  const whole = Math.floor((arrivals.length - 1 - perWindow) / perWindow)
  if (whole < 1) return null
  const a = arrivals[perWindow]!
  const b = arrivals[perWindow + whole * perWindow]!
  return (whole * perWindow) / ((b - a) / 1000)
}

/** Where the engine writes: the SQLite file by default; the team bench passes PostgreSQL. */
export interface BenchStore {
  store: SyncStore
  count(): Promise<number>
  close(): Promise<void>
}

export async function runEngine(calls: number, workDir: string, LIMIT: RateLimit, openStore?: () => Promise<BenchStore>) {
  const svc = await startBenchService(calls, LIMIT)
  try {
    const limiter = new TenantRateLimiter(LIMIT, { marginMs: MARGIN_MS })
    const counter = counting()
    const client = createServiceClient({ baseUrl: svc.url, zone: ZONE, fetch: counter.fetch, limiter })
    const session = new Session({ client, vault: new TokenVault(new MemoryStore(), createAesGcmCipher(Buffer.alloc(32, 1)), 'bench') })
    await session.login('demo', 'demo')
    const arrivals: number[] = []
    const source: SyncSource = {
      getCalls: async (p: GetCallsParams, signal?: AbortSignal): Promise<CallsPage> => {
        const page = await session.getCalls(p, signal)
        arrivals.push(performance.now())
        return page
      }
    }
    const target: BenchStore = openStore ? await openStore() : sqliteStore(join(workDir, 'sync-bench.db'))
    try {
      const engine = new SyncEngine({ source, cache: target.store, clock: systemClock, logger: silentLogger, rateLimit: LIMIT })
      const started = performance.now()
      const final = await engine.run(
        { from: Date.parse(FROM), to: Date.parse(TO) + 1000, results: 'all', includeAnalysis: false },
        { mode: 'full' }
      )
      const seconds = (performance.now() - started) / 1000
      if (final.error) throw new Error(`sync failed: ${final.error.code} ${final.error.message}`)
      const stored = await target.count()
      if (stored !== calls) throw new Error(`sync stored ${stored} of ${calls} calls`)
      arrivals.sort((x, y) => x - y)
      return {
        seconds,
        stored,
        requests: final.requests,
        rate: sustainedRate(arrivals, LIMIT.requests),
        status429: counter.status429(),
        where: svc.where
      }
    } finally {
      await target.close()
    }
  } finally {
    await svc.stop()
  }
}

function sqliteStore(file: string): BenchStore {
  const cache = openCache(file)
  return {
    store: cache.sync,
    count: () => Promise.resolve(connectionOf(cache).prepare('SELECT count(*) FROM calls').pluck().get() as number),
    close: () => Promise.resolve(cache.close())
  }
}

async function runNaive(durationMs: number, LIMIT: RateLimit) {
  const svc = await startBenchService(20_000, LIMIT)
  try {
    const counter = counting()
    // No pacing of its own: only the client's Retry-After handling after a 429.
    const client = createServiceClient({
      baseUrl: svc.url,
      zone: ZONE,
      fetch: counter.fetch,
      limiter: new TenantRateLimiter({ requests: 1_000_000, perSeconds: 1 }),
      maxRetries: 1_000
    })
    const tokens = await client.login('demo', 'demo')
    let records = 0
    let skip = 0
    const started = performance.now()
    while (performance.now() - started < durationMs) {
      const page = await client.getCalls(
        {
          from: Date.parse(FROM),
          to: Date.parse(TO) + 1000,
          skip,
          take: 100,
          ascending: true,
          callTypes: [],
          direction: null,
          results: 'all',
          hasNewRequest: null,
          includeAnalysis: false
        },
        tokens.accessToken
      )
      if (performance.now() - started <= durationMs) records += page.records.length
      skip = page.returned < 100 || skip + 200 > 10_000 ? 0 : skip + 100
    }
    return { recordsPerSecond: records / (durationMs / 1000), status429: counter.status429() }
  } finally {
    await svc.stop()
  }
}

export const limitFor = (quick: boolean): RateLimit => (quick ? QUICK_LIMIT : FULL_LIMIT)
export { sustainedRate }

export const run: BenchFn = async (ctx) => {
  const calls = ctx.quick ? 20_000 : 100_000
  const LIMIT = limitFor(ctx.quick)
  const ceiling = (LIMIT.requests / LIMIT.perSeconds) * MAX_TAKE
  ctx.log(`limit ${LIMIT.requests} requests per ${LIMIT.perSeconds} s: ceiling ${ceiling} records/s at take ${MAX_TAKE}`)
  const ours = await runEngine(calls, ctx.workDir, LIMIT)
  ctx.log(
    `engine: ${ours.stored} calls in ${ours.seconds.toFixed(1)} s, ${ours.requests} requests, ${ours.status429} × 429 (service ${ours.where})`
  )
  const naive = await runNaive(ctx.quick ? 6_000 : 20_000, LIMIT)
  ctx.log(`naive: ${naive.recordsPerSecond.toFixed(0)} records/s, ${naive.status429} × 429`)

  const sustained = ours.rate === null ? ours.requests / ours.seconds : ours.rate
  const share = ((sustained * MAX_TAKE) / ceiling) * 100
  const naiveShare = (naive.recordsPerSecond / ceiling) * 100
  const rows: BenchRow[] = [
    {
      metric: 'sync throughput, share of the ceiling (sustained)',
      value: share,
      unit: '%',
      baseline: naiveShare,
      ratio: share / naiveShare,
      target: 97,
      targetKind: 'min',
      note: `${ours.rate === null ? 'run too short for whole windows; whole-run rate' : 'whole windows after the first burst'}; service ${ours.where}; baseline: naive take-100 client`
    },
    {
      metric: '429 responses during the sync',
      value: ours.status429,
      unit: 'count',
      baseline: naive.status429,
      target: 0,
      targetKind: 'max'
    },
    {
      metric: `wall time to sync ${calls} calls`,
      value: ours.seconds,
      unit: 's',
      note: `includes the first window's burst; ${((ours.stored / ours.seconds / ceiling) * 100).toFixed(0)}% of the ceiling over the whole run`
    }
  ]
  return { name: 'sync', rows }
}
