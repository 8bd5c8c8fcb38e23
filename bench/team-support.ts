/**
 * The team bench's parts that are not measurements: the generated groups of pages a bulk sync
 * stores, the bench cluster's settings and background counters, and a pull in a CLI process
 * with its peak memory (bench/team.ts).
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { WritePageInput } from '../src/core/cache'
import type { PgSyncStore, PullTimings } from '../src/core/team'
import type { CallRecord } from '../src/shared/domain'
import { makeCall, prng } from './search-data'

export const ALL = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }
export const TYPE = { callTypes: ['Fatura'], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: false }

export function* groups(n: number, seed: number, mutate?: (r: CallRecord) => CallRecord): Generator<WritePageInput[]> {
  const rnd = prng(seed)
  let held: WritePageInput[] = []
  const fatura: CallRecord[] = []
  for (let i = 0; i < n; i += 100) {
    const page: CallRecord[] = []
    for (let k = i; k < Math.min(n, i + 100); k++) {
      const g = makeCall(k, n, rnd)
      const r = mutate ? mutate(g.record) : g.record
      page.push(r)
      if (g.topic === 0) fatura.push(r)
    }
    held.push({ scopeKey: 'all', records: page, includeAnalysis: true, checkpoint: { next: i + 100 } })
    if (fatura.length >= 500) held.push({ scopeKey: 'type', records: fatura.splice(0), includeAnalysis: false, checkpoint: { next: i } })
    if (held.length >= 20) {
      yield held
      held = []
    }
  }
  if (fatura.length) held.push({ scopeKey: 'type', records: fatura, includeAnalysis: false, checkpoint: null })
  if (held.length) yield held
}

/** docs/team.md, "Sizing and tuning": what a team cache's server runs with. */
export const PG_BENCH_TUNING: Record<string, string> = { shared_buffers: '2GB', max_wal_size: '4GB', checkpoint_timeout: '15min' }

/** What PostgreSQL did in the background while the bulk write ran: the usual suspects of a slow block. */
export async function serverActivity(
  pool: PgSyncStore['pool']
): Promise<{ checkpoints: number; backendWrites: number; autovacuums: number }> {
  const bg = await pool.query<{ c: string; b: string }>(
    'SELECT checkpoints_timed + checkpoints_req AS c, buffers_backend AS b FROM pg_stat_bgwriter'
  )
  const av = await pool.query<{ n: string }>(
    'SELECT coalesce(sum(autovacuum_count + autoanalyze_count), 0) AS n FROM pg_stat_all_tables WHERE relid >= 16384'
  )
  return { checkpoints: Number(bg.rows[0]!.c), backendWrites: Number(bg.rows[0]!.b), autovacuums: Number(av.rows[0]!.n) }
}

export const callsIn = (g: readonly WritePageInput[]): number =>
  g.filter((p) => p.scopeKey === 'all').reduce((n, p) => n + p.records.length, 0)

/** Peak resident memory of a process, read from /proc while it runs (VmHWM). */
export function peakRss(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

export async function pullInChild(
  cli: string,
  url: string,
  file: string,
  extra: string[] = []
): Promise<{ seconds: number; rss: number; calls: number; timings: PullTimings | null }> {
  // The CLI refuses a password on its command line (it would show in ps and shell history):
  // it goes in PGPASSWORD, as an operator would pass it.
  const bare = new URL(url)
  const password = decodeURIComponent(bare.password)
  bare.password = ''
  return measuredPull([cli, 'pull', '--from', bare.toString(), '--schema', 'bench', '--db', file, '--json', ...extra], {
    PGPASSWORD: password
  })
}

/** The app's pull (bench/app-pull-child.ts) in its own process; defaultHeap: as before the pull bounded V8's heap growth. */
export async function appPullInChild(
  entry: string,
  url: string,
  file: string,
  defaultHeap = false
): Promise<{ seconds: number; rss: number; calls: number; timings: PullTimings | null }> {
  return measuredPull([entry, url, 'bench', file, ...(defaultHeap ? ['--default-heap'] : [])])
}

/** Runs a pull in a child process whose last stdout line is its final progress; its peak RSS sampled every 100 ms. */
async function measuredPull(
  args: string[],
  env: Record<string, string> = {}
): Promise<{ seconds: number; rss: number; calls: number; timings: PullTimings | null }> {
  const started = performance.now()
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  let out = ''
  let err = ''
  let rss = 0
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString()
    if (out.length > 1_000_000) out = out.slice(-10_000)
    rss = Math.max(rss, peakRss(child.pid!))
  })
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const timer = setInterval(() => (rss = Math.max(rss, peakRss(child.pid!))), 100)
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
  clearInterval(timer)
  if (code !== 0) throw new Error(`pull exited ${code}: ${err}`)
  const last = JSON.parse(out.trim().split('\n').pop()!) as { calls: number; timings?: PullTimings }
  return { seconds: (performance.now() - started) / 1000, rss, calls: last.calls, timings: last.timings ?? null }
}

/** A pull's pulling-thread time by part (src/core/team/pull.ts, PullTimings), for the bench's log. */
export function timingsLine(t: PullTimings | null, seconds: number): string {
  if (!t) return 'no timings (an older CLI)'
  const part = (name: string, v: number): string => `${name} ${v.toFixed(1)} s (${((v / seconds) * 100).toFixed(0)} %)`
  return [
    part('awaiting batches', t.read),
    part('writing', t.write),
    part('awaiting the index build', t.indexWait),
    part('end', t.end)
  ].join(', ')
}
