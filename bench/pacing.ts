/**
 * Pacing of the tenant limiter (shared by every client of a tenant) against the reference service on 127.0.0.1 at
 * time-scaled limits: a 60 s window becomes 12 s (5 requests a second). Not faster: one CLI
 * sync has one request in flight, and a page of 100 calls with analysis takes about 100 ms
 * here, so at 10 a second the bench would measure the round trip, not the limiter. Each workstation is a process of the built
 * CLI syncing the whole range (with analysis: pages of 100) into its own SQLite file; a small
 * proxy in front of the service stamps every get-calls response, so shares are measured where
 * the service counts them. Every case runs the current limiter and, in the same run, the old
 * one (bench/baselines/legacy-limiter.ts, through the bench's own CLI entry
 * bench-cli-legacy-limiter.mjs), each on a fresh service.
 *
 * Share of the ceiling: get-calls admitted after the first window (the first window's worth
 * may go at once, which would flatter a short run) per second, against the service's limit.
 * Every run is bounded in calls and in time; a run past its time is cancelled (SIGINT) and
 * its share counted up to then.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import type { RateLimit } from '../src/shared/domain'
import type { BenchContext, BenchFn, BenchRow, BenchSection } from './types'
import { FROM, TO, ZONE, startBenchService, type BenchWindow } from './sync'

const CALLS_PATH = '/api/app/public-calls/get-calls'

interface Case {
  key: string
  title: string
  service: RateLimit
  window: BenchWindow
  client: RateLimit
  stations: number
  /** Calls the service holds; every station syncs all of them. */
  calls: number
  /** The calls' time span, when not the bench's month (a dense case packs them tighter). */
  range?: { from: string; to: string }
  /**
   * Share counted from the processes' start, not from the first window's end: what a user
   * waits for, start-up and the first window's burst included.
   */
  fromStart?: boolean
  /** A run's time limit, when the case needs longer than the bench's default. */
  limitMs?: number
  targets: { share: number; ratio429: number; finishRatio?: number }
}

interface Stamp {
  at: number
  status: number
  /** When the request reached the proxy. */
  sent: number
  /** Which station sent it (each station has its own proxy port). */
  station: number
}

interface Outcome {
  share: number
  ratio429: number
  status429: number
  admitted: number
  /** Slowest over fastest station, from the common start to each one's exit. */
  finishRatio: number
  exact: boolean
  timedOut: boolean
  seconds: number
}

function cases(quick: boolean): Case[] {
  const scale = quick ? 0.5 : 1
  const sliding: BenchWindow = { kind: 'sliding' }
  const tenant: RateLimit = { requests: 60, perSeconds: 12 }
  return [
    {
      key: 'matched',
      title: 'matched limit (service and client 60 per 12 s)',
      service: tenant,
      window: sliding,
      client: tenant,
      stations: 1,
      calls: 18_000 * scale,
      targets: { share: 0.97, ratio429: 0 }
    },
    {
      key: 'finer',
      title: 'service 10 per 2 s, client told 60 per 12 s',
      service: { requests: 10, perSeconds: 2 },
      window: sliding,
      client: tenant,
      stations: 1,
      // 300 requests: at 180, a single 429 would already be more than 0.5 %.
      calls: 30_000 * scale,
      targets: { share: 0.9, ratio429: 0.01 }
    },
    {
      key: 'two',
      title: 'two workstations, tenant 60 per 12 s, each told 60 per 12 s',
      service: tenant,
      window: sliding,
      client: tenant,
      stations: 2,
      calls: 18_000 * scale,
      targets: { share: 0.85, ratio429: 0.03, finishRatio: 1.5 }
    },
    {
      key: 'four',
      title: 'four workstations, tenant 60 per 12 s, each told 60 per 12 s',
      service: tenant,
      window: sliding,
      client: tenant,
      stations: 4,
      // 360 requests in all: every workstation meets the full window once at the start (a few
      // 429s that no limiter can avoid without knowing the others), which a run of 180 would
      // weigh twice as much as a sync of any size.
      calls: 9_000 * scale,
      targets: { share: 0.85, ratio429: 0.03, finishRatio: 1.5 }
    },
    {
      // A short run at a short window: the first windows, where the two stations have not yet
      // found each other, weigh most (the 0.82–0.87 measured by hand).
      key: 'two-short',
      title: 'two workstations, a short run: service and each client 20 per 2 s',
      service: { requests: 20, perSeconds: 2 },
      window: sliding,
      client: { requests: 20, perSeconds: 2 },
      stations: 2,
      calls: 12_000 * scale,
      targets: { share: 0.85, ratio429: 0.03 }
    },
    {
      // Many calls in every second of a short span: the planner must split past the service's
      // 10,000 skip + take cap; counted from the process start.
      key: 'dense',
      title: 'a dense sync: 60,000 calls within one hour, one workstation, 60 per 12 s',
      service: tenant,
      window: sliding,
      client: tenant,
      stations: 1,
      calls: 60_000 * scale,
      range: { from: '2026-01-05T09:00:00Z', to: '2026-01-05T10:00:00Z' },
      fromStart: true,
      // 600 pages at 5 a second: 120 s at the ceiling, and the process start on top.
      limitMs: 240_000 * scale,
      targets: { share: 0.85, ratio429: 0 }
    }
  ]
}

/** Forwards to the service and stamps each get-calls response with its time, status and station. */
async function stampingProxy(target: string, stamps: Stamp[], station: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const sent = performance.now()
      const headers: Record<string, string> = {}
      for (const [k, v] of Object.entries(req.headers))
        if (typeof v === 'string' && k !== 'host' && k !== 'content-length' && k !== 'connection') headers[k] = v
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined
      fetch(target + req.url, { method: req.method, headers, body })
        .then(async (r) => {
          const payload = Buffer.from(await r.arrayBuffer())
          if (req.url?.startsWith(CALLS_PATH)) stamps.push({ at: performance.now(), status: r.status, sent, station })
          const out: Record<string, string> = {}
          r.headers.forEach((v, k) => {
            if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k)) out[k] = v
          })
          res.writeHead(r.status, { ...out, 'content-length': String(payload.length) })
          res.end(payload)
        })
        .catch(() => {
          res.destroy()
        })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

interface Station {
  code: number | null
  exitedAt: number
  stderr: string
}

/** `cli`: the built CLI, or its legacy-limiter entry for the baseline. */
function runStation(cli: string, args: string[], start: number, deadline: number): Promise<Station> {
  const env: Record<string, string | undefined> = { ...process.env, CALLSIGHT_PASSWORD: 'demo' }
  const child = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const stop = setTimeout(
    () => {
      child.kill('SIGINT')
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref()
    },
    Math.max(0, deadline - performance.now())
  )
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(stop)
      resolve({ code, exitedAt: performance.now() - start, stderr })
    })
  )
}

/** `start`: count from then (the processes' start) instead of from the first window's end. */
function shareOf(stamps: Stamp[], limit: RateLimit, start?: number): number {
  const ok = stamps
    .filter((s) => s.status === 200)
    .map((s) => s.at)
    .sort((a, b) => a - b)
  const windowMs = limit.perSeconds * 1000
  if (ok.length < 2) return 0
  if (start !== undefined) return ok.length / ((ok[ok.length - 1]! - start) / 1000) / (limit.requests / limit.perSeconds)
  const from = ok[0]! + windowMs
  const last = ok[ok.length - 1]!
  if (last <= from) return NaN
  const counted = ok.filter((t) => t >= from).length
  return counted / ((last - from) / 1000) / (limit.requests / limit.perSeconds)
}

function storedCalls(file: string): number {
  if (!existsSync(file)) return 0
  const db = new Database(file, { readonly: true })
  try {
    return db.prepare('SELECT count(DISTINCT call_id) FROM calls').pluck().get() as number
  } finally {
    db.close()
  }
}

/** The built CLI, and its entry with the old limiter (bench/baselines/cli-legacy-limiter.ts). */
interface Clis {
  current: string
  legacy: string
}

async function runCase(c: Case, legacy: boolean, ctx: BenchContext, cli: Clis, limitMs: number): Promise<Outcome> {
  const svc = await startBenchService(c.calls, c.service, c.window, c.range)
  const stamps: Stamp[] = []
  const proxies = await Promise.all(Array.from({ length: c.stations }, (_, i) => stampingProxy(svc.url, stamps, i)))
  try {
    const start = performance.now()
    const deadline = start + limitMs
    const dbs = Array.from({ length: c.stations }, (_, i) => join(ctx.workDir, `pacing-${c.key}-${legacy ? 'old' : 'new'}-${i}.db`))
    const stations = await Promise.all(
      dbs.map((db, i) =>
        runStation(
          legacy ? cli.legacy : cli.current,
          [
            'sync',
            '--server',
            proxies[i]!.url,
            '--user',
            'demo',
            '--db',
            db,
            '--from',
            c.range?.from ?? FROM,
            '--to',
            c.range?.to ?? TO,
            '--zone',
            ZONE,
            '--results',
            'all',
            '--analysis',
            '--mode',
            'full',
            '--rate-limit',
            `${c.client.requests}/${c.client.perSeconds}`
          ],
          start,
          deadline
        )
      )
    )
    const timedOut = stations.some((s) => s.code !== 0)
    for (const s of stations)
      if (s.code !== 0 && s.code !== 130) ctx.log(`  a station exited ${s.code}: ${s.stderr.trim().split('\n').pop() ?? ''}`)
    const exact = dbs.every((db) => storedCalls(db) === c.calls)
    const status429 = stamps.filter((s) => s.status === 429).length
    const admitted = stamps.filter((s) => s.status === 200).length
    const finishes = stations.map((s) => s.exitedAt)
    // CALLSIGHT_PACING_TRACE=dir keeps each run's stamps (ms from the start: request in, answer out; status; station).
    const trace = process.env.CALLSIGHT_PACING_TRACE
    if (trace) {
      const rows = stamps.map((p) => `${Math.round(p.sent - start)} ${Math.round(p.at - start)} ${p.status} ${p.station}`)
      writeFileSync(join(trace, `${c.key}-${legacy ? 'old' : 'new'}.txt`), rows.join('\n') + '\n')
    }
    return {
      share: shareOf(stamps, c.service, c.fromStart ? start : undefined),
      ratio429: status429 / Math.max(1, status429 + admitted),
      status429,
      admitted,
      finishRatio: Math.max(...finishes) / Math.min(...finishes),
      exact,
      timedOut,
      seconds: (performance.now() - start) / 1000
    }
  } finally {
    await Promise.all(proxies.map((p) => p.close()))
    await svc.stop()
  }
}

const pct = (x: number): number => Math.round(x * 1000) / 10

export const run: BenchFn = async (ctx) => {
  const built = join(process.cwd(), 'out', 'node')
  if (!existsSync(join(built, 'cli.mjs')) || !existsSync(join(built, 'bench-cli-legacy-limiter.mjs')))
    throw new Error('pacing needs the built CLI (npm run bench builds it)')
  // The runs take minutes and spawn the CLI again for each: a copy (inside the repository, so
  // that its packages resolve), so that a build in the meantime (which empties out/node)
  // cannot pull it away.
  const copy = join(process.cwd(), 'node_modules', '.tmp', `callsight-pacing-${process.pid}`)
  cpSync(built, copy, { recursive: true })
  const cli: Clis = { current: join(copy, 'cli.mjs'), legacy: join(copy, 'bench-cli-legacy-limiter.mjs') }
  const serviceBefore = process.env.CALLSIGHT_SERVICE_BUNDLE
  process.env.CALLSIGHT_SERVICE_BUNDLE ??= join(copy, 'service.mjs')
  try {
    return await runCases(ctx, cli)
  } finally {
    if (serviceBefore === undefined) delete process.env.CALLSIGHT_SERVICE_BUNDLE
    rmSync(copy, { recursive: true, force: true })
  }
}

async function runCases(ctx: BenchContext, cli: Clis): Promise<BenchSection> {
  const only = process.env.CALLSIGHT_PACING_CASES?.split(',')
  const limitMs = ctx.quick ? 60_000 : 120_000
  const rows: BenchRow[] = []
  for (const c of cases(ctx.quick).filter((x) => !only || only.includes(x.key))) {
    ctx.log(`${c.title}: ${c.stations} station(s), ${c.calls} calls each, at most ${(c.limitMs ?? limitMs) / 1000} s a run`)
    const ours = await runCase(c, false, ctx, cli, c.limitMs ?? limitMs)
    // CALLSIGHT_PACING_NO_BASELINE=1 skips the old limiter: for looking at traces, not for figures.
    const old = process.env.CALLSIGHT_PACING_NO_BASELINE === '1' ? ours : await runCase(c, true, ctx, cli, c.limitMs ?? limitMs)
    for (const [who, o] of [
      ['new', ours],
      ['old', old]
    ] as const) {
      ctx.log(
        `  ${who}: ${pct(o.share)} % of the ceiling, ${o.status429} x 429 in ${o.admitted + o.status429} (${pct(o.ratio429)} %), ` +
          `finish ratio ${o.finishRatio.toFixed(2)}, ${o.exact ? 'exact sets' : 'NOT exact'}${o.timedOut ? ', cut at the time limit' : ''}, ${o.seconds.toFixed(1)} s`
      )
    }
    const base = `${c.key}: `
    rows.push({
      metric: `${base}share of the service's ceiling`,
      value: pct(ours.share),
      unit: '%',
      baseline: pct(old.share),
      ratio: old.share > 0 ? ours.share / old.share : NaN,
      target: pct(c.targets.share),
      targetKind: 'min',
      note: `${c.title}; baseline: the old limiter, same run`
    })
    rows.push({
      metric: `${base}429s among get-calls responses`,
      value: pct(ours.ratio429),
      unit: '%',
      baseline: pct(old.ratio429),
      target: pct(c.targets.ratio429),
      targetKind: 'max',
      note: `${ours.status429} of ${ours.admitted + ours.status429} (old: ${old.status429} of ${old.admitted + old.status429})`
    })
    if (c.targets.finishRatio) {
      rows.push({
        metric: `${base}slowest station's time over the fastest's`,
        value: Math.round(ours.finishRatio * 100) / 100,
        unit: 'x',
        baseline: Math.round(old.finishRatio * 100) / 100,
        target: c.targets.finishRatio,
        targetKind: 'max'
      })
    }
    rows.push({
      metric: `${base}every station ended with the exact set`,
      value: ours.exact ? 1 : 0,
      unit: 'bool',
      baseline: old.exact ? 1 : 0,
      target: 1,
      targetKind: 'min',
      note: old.timedOut ? 'the old limiter was cut at the time limit' : undefined
    })
  }
  return { name: 'pacing', rows }
}
