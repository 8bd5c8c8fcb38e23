import type { ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../src/core/sync'
import { createPool, PgSyncStore, readWorkerState, type WorkerScopeState } from '../../../src/core/team'
import type { RunningService } from '../../../src/reference-service'
import { buildCli, removeBuild } from '../cli/build-cli'
import { runCli, spawnCli } from '../cli/helpers'
import { FAST_TEST_SETTINGS, PG_SUPERUSER, PG_SUPERUSER_PASSWORD, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { prng } from '../../support/prng'
import { until } from '../../support/until'
import { freshDatabase, startTestService, tempDir } from './helpers'

/** A little latency per request, so that kills and SIGTERMs land while requests are in flight. */
const LATENCY_MS = 10
let cli = ''
let cluster: PgCluster
let service: RunningService
const tmp = tempDir('callsight-worker-')

beforeAll(async () => {
  ;[cli, cluster, service] = await Promise.all([
    buildCli(),
    startPgCluster({ settings: FAST_TEST_SETTINGS }),
    startTestService({ calls: 12_000, denseSeconds: [{ at: '2026-01-05T12:00:00Z', count: 700 }] })
  ])
  service.admin.setFaults({ latencyMs: LATENCY_MS })
}, 120_000)

afterAll(async () => {
  await service?.stop()
  await cluster?.stop()
  removeBuild(cli)
  tmp.remove()
})

const FROM = '2026-01-05T06:00:00Z'
const ENV = { PGPASSWORD: PG_SUPERUSER_PASSWORD }
const SCOPES = [
  { name: 'everything', from: FROM, analysis: true, results: 'all' },
  { name: 'answered inbound', from: FROM, analysis: false, direction: 1 }
]

/** `url` for the test's own pool (password included); `cliUrl` for the CLI's argv (none: PGPASSWORD). */
async function setUp(extra: Record<string, unknown> = {}): Promise<{ url: string; cliUrl: string; config: string }> {
  const database = await freshDatabase(cluster)
  const url = cluster.urlFor({ database })
  await (await PgSyncStore.open({ url, schema: 'acme', migrate: true })).close()
  const config = join(tmp.dir, `${database}.json`)
  // The file names the role only: the password comes from PGPASSWORD (ENV), as in production.
  writeFileSync(
    config,
    JSON.stringify({
      server: service.url,
      user: 'demo',
      zone: 'Europe/Istanbul',
      db: cluster.urlFor({ database, user: PG_SUPERUSER }),
      schema: 'acme',
      rateLimit: { requests: 600, perSeconds: 1 },
      intervalMinutes: 0.02,
      scopes: SCOPES,
      // What these tests look at is the scopes' own runs; the passes have tests of their own.
      memberships: false,
      fullPassEvery: false,
      ...extra
    })
  )
  return { url, cliUrl: cluster.credentialsFor({ database }).url, config }
}

interface LogLine {
  level: string
  msg: string
  scope?: string
  resumed?: boolean
  limitPerMinute?: number
}
const lines = (stdout: string): LogLine[] =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LogLine)

/**
 * Sends the signal once the service has answered `answers` more requests after the worker said
 * "sync started": an amount of work, not of time, so a fast machine cannot finish first.
 */
function signalAfterAnswers(child: ChildProcess, signal: NodeJS.Signals, answers: number): { stop(): void } {
  let watch: NodeJS.Timeout | undefined
  child.stdout!.on('data', (d: Buffer) => {
    if (watch !== undefined || !d.toString().includes('"sync started"')) return
    const at = service.admin.stats().requests + answers
    watch = setInterval(() => {
      if (service.admin.stats().requests < at) return
      clearInterval(watch)
      child.kill(signal)
    }, 2)
  })
  return { stop: () => clearInterval(watch) }
}

/** The team cache holds exactly the service's calls, analysis items and both scopes' members. */
async function expectServiceSet(c: pg.Client): Promise<void> {
  const dump = service.admin.dump()
  const ids = (await c.query<{ call_id: string }>('SELECT call_id FROM acme.calls')).rows.map((x) => x.call_id)
  expect(ids.length).toBe(dump.length)
  expect(new Set(ids)).toEqual(new Set(dump.map((d) => d.callId)))
  const items = await c.query<{ n: number }>('SELECT coalesce(sum(json_array_length(analysis::json)), 0)::int AS n FROM acme.calls')
  expect(items.rows[0]!.n).toBe(dump.reduce((n, d) => n + d.analysis.length, 0))
  const members = async (scope: object): Promise<Set<string>> =>
    new Set(
      (
        await c.query<{ call_id: string }>(
          'SELECT m.call_id FROM acme.scope_members m JOIN acme.scopes s ON s.id = m.scope_id WHERE s.scope_key = $1',
          [SyncEngine.keyOf({ from: 0, to: 1, ...scope })]
        )
      ).rows.map((x) => x.call_id)
    )
  expect(await members({ results: 'all', includeAnalysis: true })).toEqual(new Set(dump.map((d) => d.callId)))
  expect(await members({ includeAnalysis: false, direction: 1 })).toEqual(
    new Set(dump.filter((d) => d.result === 1 && d.direction === 1).map((d) => d.callId))
  )
}

describe('callsight worker', () => {
  it('killed with SIGKILL at random moments, resumes each time and ends with exactly the service set', async () => {
    const { url, config } = await setUp()
    // Each kill comes after a random number (1–10, seeded) of the service's answers since the
    // worker said "sync started": the work done decides when, not a timer, so no machine is fast
    // enough to finish the ~140 pages between two kills (timers did: 7 kills of 14 on a fast one).
    const random = prng(14)
    let kills = 0
    for (let i = 0; i < 14; i++) {
      const { child, done } = spawnCli(cli, ['worker', '--config', config, '--once'], ENV)
      const watch = signalAfterAnswers(child, 'SIGKILL', 1 + Math.floor(random() * 10))
      const r = await done
      watch.stop()
      if (r.signal === 'SIGKILL') kills++
      else expect(r.code, r.stderr + r.stdout).toBe(0)
    }
    expect(kills).toBeGreaterThanOrEqual(8)
    const last = spawnCli(cli, ['worker', '--config', config, '--once'], ENV)
    const r = await last.done
    expect(r.code, r.stderr).toBe(0)
    const log = lines(r.stdout)
    expect(log.filter((l) => l.msg === 'sync done').map((l) => l.scope)).toEqual(['everything', 'answered inbound'])
    // Each says the limiter's pace against the tenant's limit.
    for (const l of log.filter((l) => l.msg === 'sync done')) expect(l.limitPerMinute).toBeGreaterThan(0)

    const c = new pg.Client({ connectionString: url })
    await c.connect()
    try {
      await expectServiceSet(c)
      const state = await c.query<{ name: string; running: boolean; last_success_at: string | null; last_outcome: string }>(
        'SELECT name, running, last_success_at, last_outcome FROM acme.worker_scopes ORDER BY name'
      )
      expect(state.rows.map((s) => [s.name, s.running, s.last_outcome, s.last_success_at !== null])).toEqual([
        ['answered inbound', false, 'done', true],
        ['everything', false, 'done', true]
      ])
      // A kill that lands before the run's row is written (right after "sync started", or between the
      // two scopes; more of them on a loaded machine) leaves no run behind: so no fixed count, but no
      // run is left marked running, and the kills that cut a run short left it interrupted.
      const outcomes = await c.query<{ outcome: string; n: number }>(
        'SELECT outcome, count(*)::int AS n FROM acme.sync_runs GROUP BY outcome'
      )
      const byOutcome = Object.fromEntries(outcomes.rows.map((o) => [o.outcome, o.n]))
      expect(byOutcome['running']).toBeUndefined()
      expect(byOutcome['interrupted']).toBeGreaterThanOrEqual(1)
      expect(byOutcome['interrupted']).toBeLessThanOrEqual(kills)
    } finally {
      await c.end()
    }
  }, 240_000)

  it('keeps running when PostgreSQL ends its sessions mid-sync, and a later cycle ends with exactly the service set', async () => {
    const { url, config } = await setUp()
    const database = new URL(url).pathname.slice(1)
    const { child, done } = spawnCli(cli, ['worker', '--config', config], ENV)
    let out = ''
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
    let stderr = ''
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
    /** Complete JSON lines from `from` on; fails at once if the worker has exited. */
    const logFrom = (from: number): LogLine[] => {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the worker exited: ${stderr}${out}`)
      return lines(out.slice(from, out.lastIndexOf('\n') + 1))
    }
    try {
      // After some work of a sync (answers counted, not time): what a restart or a failover of
      // PostgreSQL, or an administrator, does to the worker's sessions, its held run lock's too.
      await until(() => (logFrom(0).some((l) => l.msg === 'sync started') ? true : undefined))
      const at = service.admin.stats().requests + 5
      await until(() => (logFrom(0) && service.admin.stats().requests >= at ? true : undefined))
      const mark = out.length
      const ended = await cluster.sql('SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity WHERE datname = $1', [
        database
      ])
      expect(ended.rows[0].n).toBeGreaterThan(0)

      // Two cycles end after it: so one cycle ran wholly after the sessions ended.
      await until(() => (logFrom(mark).filter((l) => l.msg === 'waiting for the next cycle').length >= 2 ? true : undefined), 90_000)
      const after = logFrom(mark)
      const ends = after.flatMap((l, i) => (l.msg === 'waiting for the next cycle' ? [i] : []))
      const lastCycle = after.slice(ends[ends.length - 2]! + 1, ends[ends.length - 1])
      expect(lastCycle.filter((l) => l.msg === 'sync done').map((l) => l.scope)).toEqual(['everything', 'answered inbound'])
    } finally {
      service.admin.setFaults({ latencyMs: LATENCY_MS })
      child.kill('SIGTERM')
    }
    const r = await done
    expect(r.code, r.stderr).toBe(0)
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    try {
      await expectServiceSet(c)
      const running = await c.query('SELECT name FROM acme.worker_scopes WHERE running')
      expect(running.rows).toEqual([])
    } finally {
      await c.end()
    }
  }, 150_000)

  it('keeps its run lease when PostgreSQL ends its sessions mid-run: the scope reads running, not interrupted', async () => {
    // A lease of 3 s: a loaded machine's pauses must not let it lapse under a live worker
    // (that reads as stale, which is not what this test is about).
    const { url, config } = await setUp({ heartbeatSeconds: 1 })
    // Slower pages: the first pass outlasts the steps below.
    service.admin.setFaults({ latencyMs: 50 })
    const { child, done } = spawnCli(cli, ['worker', '--config', config, '--once'], ENV)
    const pool = createPool({ url, schema: 'acme', maxConnections: 1 })
    try {
      await new Promise<void>((resolve) =>
        child.stdout!.on('data', (d: Buffer) => {
          if (d.toString().includes('"sync started"')) resolve()
        })
      )
      const at = service.admin.stats().requests + 3
      await until(() => (service.admin.stats().requests >= at ? true : undefined))
      const everything = async (): Promise<WorkerScopeState | undefined> =>
        (await readWorkerState(pool, 'acme')).find((w) => w.name === 'everything')
      expect((await everything())?.status).toBe('running')
      // The worker's idle sessions (no write of the run is cut): its lease is a row, not a
      // session's lock, so losing them neither ends the run nor reads as a killed worker.
      const mine = (await pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid // not the worker's, excluded anyway
      // Taken as soon as the worker has a session idle (between its writes and beats).
      const ended = await until(async () => {
        const r = await cluster.sql(
          `SELECT pid, pg_terminate_backend(pid) AS ok FROM pg_stat_activity
           WHERE datname = $1 AND pid <> $2 AND application_name = 'callsight-worker' AND state = 'idle'`,
          [new URL(url).pathname.slice(1), mine]
        )
        return r.rows.length > 0 ? r : undefined
      })
      expect(ended.rows.length).toBeGreaterThan(0)
      expect(ended.rows.every((x) => x.ok === true)).toBe(true)
      const pids = ended.rows.map((x) => x.pid as number)
      await until(async () =>
        (await cluster.sql('SELECT 1 FROM pg_stat_activity WHERE pid = ANY($1)', [pids])).rowCount === 0 ? true : undefined
      )
      // Read as running before the run ends.
      const seen = await until(async () => {
        const e = await everything()
        return e?.status === 'running' || !e?.running ? e?.status : undefined
      }, 20_000)
      expect(seen).toBe('running')
      service.admin.setFaults({ latencyMs: LATENCY_MS })
      const r = await done
      expect(r.code, r.stderr).toBe(0)
      expect(
        lines(r.stdout)
          .filter((l) => l.msg === 'sync done')
          .map((l) => l.scope)
      ).toEqual(['everything', 'answered inbound'])
    } finally {
      service.admin.setFaults({ latencyMs: LATENCY_MS })
      child.kill('SIGKILL')
      await pool.end()
    }
  }, 120_000)

  it('stops cleanly on SIGTERM: exit 0, the run recorded as cancelled, the scope not running', async () => {
    const { url, config } = await setUp()
    const { child, done } = spawnCli(cli, ['worker', '--config', config], ENV)
    const watch = signalAfterAnswers(child, 'SIGTERM', 5)
    const r = await done
    watch.stop()
    expect(r.code, r.stderr).toBe(0)
    const log = lines(r.stdout)
    expect(log.map((l) => l.msg)).toContain('stop requested (SIGTERM)')
    expect(log[log.length - 1]!.msg).toBe('worker stopped')
    const c = new pg.Client({ connectionString: url })
    await c.connect()
    try {
      const state = await c.query<{ running: boolean; last_outcome: string }>(
        "SELECT running, last_outcome FROM acme.worker_scopes WHERE name = 'everything'"
      )
      expect(state.rows[0]).toEqual({ running: false, last_outcome: 'cancelled' })
      const runs = await c.query<{ outcome: string }>('SELECT outcome FROM acme.sync_runs')
      expect(runs.rows.map((x) => x.outcome)).toEqual(['cancelled'])
      expect((await c.query('SELECT count(*)::int AS n FROM acme.checkpoints')).rows[0].n).toBe(1)
    } finally {
      await c.end()
    }
  }, 120_000)

  it('a killed worker reads as interrupted, a frozen one as stale, in the state and in team status', async () => {
    const { url, cliUrl, config } = await setUp({ heartbeatSeconds: 0.2 })
    // Slow pages, so the run outlasts the steps below.
    service.admin.setFaults({ latencyMs: 400 })
    const pool = createPool({ url, schema: 'acme', maxConnections: 1 })
    const { child, done } = spawnCli(cli, ['worker', '--config', config, '--once'], ENV)
    try {
      await new Promise<void>((resolve) =>
        child.stdout!.on('data', (d: Buffer) => {
          if (d.toString().includes('"sync started"')) resolve()
        })
      )
      const everything = async (): Promise<string | undefined> =>
        (await readWorkerState(pool, 'acme')).find((w) => w.name === 'everything')?.status
      /** Polls (a real process, a real server: generous bound, no fixed wait). */
      const untilStatus = async (status: string): Promise<void> => {
        const deadline = Date.now() + 20_000
        let seen: string | undefined
        while ((seen = await everything()) !== status && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
        expect(seen).toBe(status)
      }
      // Exit codes: 0 healthy, 13 stale, 15 stopped (docs/cli.md).
      const teamStatus = async (code: number): Promise<string> => {
        const r = await runCli(cli, ['team', 'status', '--db', cliUrl, '--schema', 'acme'], ENV)
        expect(r.code, r.stderr + r.stdout).toBe(code)
        return r.stdout
      }
      await untilStatus('running')
      expect(await teamStatus(0)).toMatch(/- everything: running since /)
      // Frozen: its heartbeat stops and the lease lapses.
      child.kill('SIGSTOP')
      await untilStatus('stale')
      expect(await teamStatus(13)).toMatch(/- everything: stale: running since .*no heartbeat for \d+ s/)
      child.kill('SIGCONT')
      await untilStatus('running')
      // Killed: its lease is never renewed again; the row still says running.
      child.kill('SIGKILL')
      expect((await done).signal).toBe('SIGKILL')
      await untilStatus('interrupted')
      const raw = await pool.query<{ running: boolean }>("SELECT running FROM acme.worker_scopes WHERE name = 'everything'")
      expect(raw.rows[0]!.running).toBe(true)
      expect(await teamStatus(15)).toMatch(/- everything: interrupted: the worker stopped during the run started /)
    } finally {
      child.kill('SIGKILL')
      service.admin.setFaults({ latencyMs: LATENCY_MS })
    }
    // The next run continues and ends idle.
    const r = await runCli(cli, ['worker', '--config', config, '--once'], ENV)
    expect(r.code, r.stderr).toBe(0)
    expect((await readWorkerState(pool, 'acme')).map((w) => [w.name, w.status, w.last_outcome])).toEqual([
      ['answered inbound', 'idle', 'done'],
      ['everything', 'idle', 'done']
    ])
    await pool.end()
  }, 180_000)
})
