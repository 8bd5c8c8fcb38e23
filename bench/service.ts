/**
 * Reference service: generation time for 1,000,000 calls (target < 15 s) and page-of-500
 * latency over real HTTP on loopback at several depths and time ranges (target < 20 ms).
 * Baseline per latency row: the same query with take 0 (HTTP, auth, range search and the
 * count, without building records), measured in the same run; ratio = value / baseline.
 */
import { startService } from '../src/reference-service'
import { median, percentile, type BenchFn, type BenchRow } from './types'

const FROM = '2025-01-01T00:00:00Z'
const TO = '2025-04-01T00:00:00Z'

/** The floor of any generator: fill N random times and sort them natively. */
function sortFloorSeconds(n: number): number {
  const t0 = performance.now()
  const a = new Float64Array(n)
  for (let i = 0; i < n; i++) a[i] = Math.floor(Math.random() * 7_776_000)
  a.sort()
  return (performance.now() - t0) / 1000
}

export const run: BenchFn = async (ctx) => {
  const calls = ctx.quick ? 100_000 : 1_000_000
  const rounds = ctx.quick ? 15 : 40
  const floor = sortFloorSeconds(calls)
  const t0 = performance.now()
  const svc = await startService({ calls, seed: 1, from: FROM, to: TO, rateLimit: { requests: 1_000_000, perSeconds: 1 }, quiet: true })
  const genSeconds = (performance.now() - t0) / 1000
  ctx.log(`generated ${calls} calls and started in ${genSeconds.toFixed(2)} s`)
  const rows: BenchRow[] = [
    {
      metric: `generate ${calls.toLocaleString('en')} calls + start`,
      value: genSeconds,
      unit: 's',
      baseline: floor,
      ratio: genSeconds / floor,
      target: 15,
      targetKind: 'max',
      note: `baseline: fill + sort ${calls.toLocaleString('en')} random times; ratio = value / baseline${ctx.quick ? '; quick: 100k calls' : ''}`
    }
  ]
  try {
    const login = await fetch(`${svc.url}/api/public/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"username":"demo","password":"demo"}'
    })
    const { access_token: token } = (await login.json()) as { access_token: string }
    const query = async (body: Record<string, unknown>): Promise<number> => {
      const start = performance.now()
      const res = await fetch(`${svc.url}/api/app/public-calls/get-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body)
      })
      const page = (await res.json()) as { items: unknown[] }
      const ms = performance.now() - start
      if (res.status !== 200) throw new Error(`get-calls answered ${res.status}`)
      if (body.take !== 0 && page.items.length === 0) throw new Error('empty page')
      return ms
    }
    const measure = async (body: Record<string, unknown>): Promise<number[]> => {
      for (let i = 0; i < 3; i++) await query(body)
      const times: number[] = []
      for (let i = 0; i < rounds; i++) times.push(await query(body))
      return times
    }
    const whole = { startTime: '2025-01-01T03:00:00', endTime: '2025-04-01T02:59:59' }
    const late = { startTime: '2025-03-25T00:00:00', endTime: '2025-04-01T02:59:59' }
    // The quick tenant holds too few calls in its last week for a 9,500-deep page.
    const lateDeep = ctx.quick ? 2000 : 9500
    const cases: Array<[string, Record<string, unknown>]> = [
      ['whole range, Answered, skip 0', { ...whole, skip: 0 }],
      ['whole range, Answered, skip 5000', { ...whole, skip: 5000 }],
      ['whole range, Answered, skip 9500', { ...whole, skip: 9500 }],
      ['whole range, all results, skip 9500 asc', { ...whole, skip: 9500, results: null, isAscending: true }],
      ['last week, Answered, skip 0', { ...late, skip: 0 }],
      [`last week, all results, skip ${lateDeep}`, { ...late, skip: lateDeep, results: null }],
      ['last week, filtered (type+direction), skip 0', { ...late, skip: 0, issueTypeNames: ['Complaint', 'Refund'], direction: 1 }]
    ]
    for (const [name, body] of cases) {
      const times = await measure({ ...body, take: 500, sortColumn: 'start_time_dt' })
      const floor = await measure({ ...body, take: 0, sortColumn: 'start_time_dt' })
      const p50 = median(times)
      const base = median(floor)
      rows.push({
        metric: `page of 500, ${name}, p50`,
        value: p50,
        unit: 'ms',
        baseline: base,
        ratio: p50 / base,
        target: 20,
        targetKind: 'max',
        note: 'ratio = value / take-0 baseline'
      })
      rows.push({ metric: `page of 500, ${name}, p95`, value: percentile(times, 95), unit: 'ms', target: 20, targetKind: 'max' })
    }
    const withAnalysis = await measure({ ...late, skip: lateDeep, take: 100, includeAnalysis: true, results: null })
    rows.push({
      metric: `page of 100 with analysis, last week, skip ${lateDeep}, p50`,
      value: median(withAnalysis),
      unit: 'ms',
      target: 20,
      targetKind: 'max'
    })
  } finally {
    await svc.stop()
  }
  return { name: 'service', rows }
}
