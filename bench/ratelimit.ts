/**
 * Tenant rate limiter against the reference service at a time-scaled limit (60 requests per
 * 3 s instead of per 60 s). Our client (limiter + retry policy) and a naive client (no
 * limiter; waits Retry-After only after a 429) each hammer a fresh service for the same time
 * with the same concurrency. Reported: requests per window against the limit, 429s (target
 * 0), and useful throughput.
 */
import { maxInWindow } from '../test/support/windows'
import { startService } from '../src/reference-service'
import { createServiceClient } from '../src/core/client'
import type { FetchLike } from '../src/core/platform'
import { TenantRateLimiter } from '../src/core/ratelimit'
import { isCallsightError } from '../src/core/errors'
import type { BenchFn, BenchRow } from './types'
import { median } from './types'

const LIMIT = { requests: 60, perSeconds: 3 }
const WORKERS = 4

interface RunResult {
  sent: number[]
  status429: number
  ok: number
  failed: number
  seconds: number
}

async function runClient(kind: 'limited' | 'naive', durationMs: number): Promise<RunResult> {
  const svc = await startService({ port: 0, calls: 200, seed: 3, rateLimit: LIMIT, quiet: true })
  try {
    const sent: number[] = []
    let status429 = 0
    const fetch: FetchLike = async (input, init) => {
      sent.push(performance.now())
      const res = await globalThis.fetch(input, init)
      if (res.status === 429) status429++
      return res
    }
    const limiter = new TenantRateLimiter(kind === 'limited' ? LIMIT : { requests: 1_000_000, perSeconds: 1 })
    const client = createServiceClient({
      baseUrl: svc.url,
      zone: 'Europe/Istanbul',
      fetch,
      limiter,
      // The naive client keeps retrying 429s after Retry-After; ours rarely needs to.
      maxRetries: kind === 'naive' ? 1_000 : 4
    })
    const start = performance.now()
    const tokens = await client.login('demo', 'demo')
    const to = Date.now()
    let ok = 0
    let failed = 0
    const worker = async (): Promise<void> => {
      while (performance.now() - start < durationMs) {
        try {
          await client.getCalls(
            {
              from: to - 30 * 86_400_000,
              to,
              skip: ok % 100,
              take: 1,
              ascending: false,
              callTypes: [],
              direction: null,
              results: 'all',
              hasNewRequest: null,
              includeAnalysis: false
            },
            tokens.accessToken
          )
          if (performance.now() - start < durationMs) ok++
        } catch (e) {
          if (!isCallsightError(e)) throw e
          failed++
        }
      }
    }
    await Promise.all(Array.from({ length: WORKERS }, worker))
    return { sent: sent.map((t) => t - start).filter((t) => t < durationMs), status429, ok, failed, seconds: durationMs / 1000 }
  } finally {
    await svc.stop()
  }
}

function perWindow(times: number[], windowMs: number, durationMs: number): number[] {
  const n = Math.floor(durationMs / windowMs)
  const counts = new Array<number>(n).fill(0)
  for (const t of times) {
    const w = Math.floor(t / windowMs)
    if (w < n) counts[w]!++
  }
  return counts
}

export const run: BenchFn = async (ctx) => {
  const durationMs = ctx.quick ? 9_000 : 30_000
  const windowMs = LIMIT.perSeconds * 1000
  ctx.log(`limit ${LIMIT.requests} per ${LIMIT.perSeconds} s, ${durationMs / 1000} s per client, ${WORKERS} concurrent workers`)
  const ours = await runClient('limited', durationMs)
  ctx.log(`limited client: ${ours.ok} ok, ${ours.status429} x 429, ${ours.failed} failed`)
  const naive = await runClient('naive', durationMs)
  ctx.log(`naive client: ${naive.ok} ok, ${naive.status429} x 429, ${naive.failed} failed`)

  const rate = (r: RunResult): number => r.ok / r.seconds
  const limitRate = LIMIT.requests / LIMIT.perSeconds
  const rows: BenchRow[] = [
    {
      metric: '429 responses',
      value: ours.status429,
      unit: 'count',
      baseline: naive.status429,
      target: 0,
      targetKind: 'max',
      note: 'baseline: naive client (no limiter, retries after 429)'
    },
    {
      metric: `max requests sent in any ${LIMIT.perSeconds} s window`,
      value: maxInWindow(ours.sent, windowMs),
      unit: 'requests',
      baseline: maxInWindow(naive.sent, windowMs),
      target: LIMIT.requests,
      targetKind: 'max',
      note: `limit ${LIMIT.requests}; baseline counts its rejected attempts too`
    },
    {
      metric: `median requests per ${LIMIT.perSeconds} s window`,
      value: median(perWindow(ours.sent, windowMs, durationMs)),
      unit: 'requests',
      baseline: median(perWindow(naive.sent, windowMs, durationMs)),
      note: `limit ${LIMIT.requests}`
    },
    {
      metric: 'successful requests per second',
      value: rate(ours),
      unit: 'req/s',
      baseline: rate(naive),
      ratio: rate(naive) > 0 ? rate(ours) / rate(naive) : NaN,
      target: 0.85 * limitRate,
      targetKind: 'min',
      note: `ratio = ours / naive; the limit allows ${limitRate} req/s`
    },
    { metric: 'failed calls', value: ours.failed, unit: 'count', baseline: naive.failed, target: 0, targetKind: 'max' }
  ]
  return { name: 'ratelimit', rows }
}
