import type { ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../src/core/sync'
import { PgSyncStore } from '../../../src/core/team'
import type { RunningService } from '../../../src/reference-service'
import { buildCli, removeBuild } from '../cli/build-cli'
import { runCli, spawnCli } from '../cli/helpers'
import { FAST_TEST_SETTINGS, PG_SUPERUSER, PG_SUPERUSER_PASSWORD, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { until } from '../../support/until'
import { freshDatabase, startTestService, tempDir } from './helpers'

/**
 * The worker as an operator runs it for weeks: PostgreSQL restarted under it, two workers
 * started by mistake, a password rotated, and what `team status` and `--metrics` tell.
 */
const LATENCY_MS = 10
let cli = ''
let cluster: PgCluster
let service: RunningService
const tmp = tempDir('callsight-worker-ops-')

beforeAll(async () => {
  ;[cli, cluster, service] = await Promise.all([
    buildCli(),
    startPgCluster({ settings: FAST_TEST_SETTINGS }),
    startTestService({ calls: 12_000 })
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

/** `url` for the CLI's argv and the worker's config: no password (PGPASSWORD gives it). */
async function setUp(extra: Record<string, unknown> = {}): Promise<{ url: string; config: string }> {
  const database = await freshDatabase(cluster)
  const poolUrl = cluster.urlFor({ database })
  const url = cluster.credentialsFor({ database }).url
  await (await PgSyncStore.open({ url: poolUrl, schema: 'acme', migrate: true })).close()
  const config = join(tmp.dir, `${database}.json`)
  writeFileSync(
    config,
    JSON.stringify({
      server: service.url,
      user: 'demo',
      zone: 'Europe/Istanbul',
      db: cluster.credentialsFor({ database, user: PG_SUPERUSER }).url,
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
  return { url, config }
}

interface LogLine {
  time: string
  level: string
  msg: string
  scope?: string
  resumed?: boolean
  owner?: string
  stored?: number
  fetched?: number
}
const lines = (stdout: string): LogLine[] =>
  stdout
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as LogLine)

/** Resolves once the service has answered `answers` more requests after the worker said "sync started". */
function afterAnswers(child: ChildProcess, answers: number): Promise<void> {
  return new Promise((resolve) => {
    let watch: NodeJS.Timeout | undefined
    child.stdout!.on('data', (d: Buffer) => {
      if (watch !== undefined || !d.toString().includes('"sync started"')) return
      const at = service.admin.stats().requests + answers
      watch = setInterval(() => {
        if (service.admin.stats().requests < at) return
        clearInterval(watch)
        resolve()
      }, 2)
    })
  })
}

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  // The URL is the CLI's (no password); the test's own client adds it.
  const withPassword = new URL(url)
  withPassword.password = PG_SUPERUSER_PASSWORD
  const c = new pg.Client({ connectionString: withPassword.toString() })
  await c.connect()
  try {
    return await fn(c)
  } finally {
    await c.end()
  }
}

/** The team cache holds exactly the service's calls and both scopes' members. */
async function expectServiceSet(url: string): Promise<void> {
  await withClient(url, async (c) => {
    const dump = service.admin.dump()
    const ids = (await c.query<{ call_id: string }>('SELECT call_id FROM acme.calls')).rows.map((x) => x.call_id)
    expect(ids.length).toBe(dump.length)
    expect(new Set(ids)).toEqual(new Set(dump.map((d) => d.callId)))
    const members = async (scope: object): Promise<number> =>
      (
        await c.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM acme.scope_members m JOIN acme.scopes s ON s.id = m.scope_id WHERE s.scope_key = $1',
          [SyncEngine.keyOf({ from: 0, to: 1, ...scope })]
        )
      ).rows[0]!.n
    expect(await members({ results: 'all', includeAnalysis: true })).toBe(dump.length)
    expect(await members({ includeAnalysis: false, direction: 1 })).toBe(dump.filter((d) => d.result === 1 && d.direction === 1).length)
  })
}

interface ScopeJson {
  health: string
  worker: string
  standby: string | null
  failingSince: string | null
  lastError: { code: string; message: string; detail: string } | null
}
const statusJson = async (url: string): Promise<{ code: number | null; body: { health: string; scopes: ScopeJson[] } }> => {
  const r = await runCli(cli, ['team', 'status', '--db', url, '--schema', 'acme', '--json'], ENV)
  return { code: r.code, body: JSON.parse(r.stdout) as { health: string; scopes: ScopeJson[] } }
}

describe('callsight worker in operation', () => {
  it('rides out a PostgreSQL restart mid-sync: waits, resumes within 10 s and ends the same cycle with the exact set', async () => {
    const { url, config } = await setUp()
    const { child, done } = spawnCli(cli, ['worker', '--config', config, '--once'], ENV)
    await afterAnswers(child, 8)
    // Stop fast (sessions ended under the worker's writes), 2 s with no server, start again.
    const restartedAt = await cluster.restart(2000)
    const r = await done
    // The cycle's scopes all synced: --once exits 0 only when no run failed.
    expect(r.code, r.stderr + r.stdout).toBe(0)
    const log = lines(r.stdout)
    const waiting = log.filter((l) => /^waiting for PostgreSQL since \d\d:\d\d:\d\d$/.test(l.msg))
    expect(waiting, r.stdout).toHaveLength(1)
    expect(log.filter((l) => l.msg === 'PostgreSQL is back')).toHaveLength(1)
    expect(log.filter((l) => l.msg === 'sync could not run' || l.msg === 'sync failed')).toEqual([])
    expect(log.filter((l) => l.msg === 'sync done').map((l) => l.scope)).toEqual(['everything', 'answered inbound'])
    // The interrupted scope started again from its checkpoint, not the next scope.
    const waitAt = log.indexOf(waiting[0]!)
    const next = log.slice(waitAt).find((l) => l.msg === 'sync started')!
    expect(next).toMatchObject({ scope: 'everything', resumed: true })
    const gap = Date.parse(next.time) - restartedAt
    expect(gap).toBeLessThanOrEqual(10_000)
    await expectServiceSet(url)
    // Not a failed run: no error kept for it.
    const s = await statusJson(url)
    expect(s.body.scopes.map((x) => x.lastError)).toEqual([null, null])
  }, 180_000)

  it('a second worker waits as a standby (0 × 429, status names it) and takes over when the first is killed', async () => {
    // A lease of 6 s: a loaded machine's pauses never let it lapse under a live worker.
    const { url, config } = await setUp({ heartbeatSeconds: 2 })
    service.admin.setFaults({ latencyMs: 40 })
    service.admin.resetStats()
    const first = spawnCli(cli, ['worker', '--config', config], ENV)
    const second = spawnCli(cli, ['worker', '--config', config], ENV)
    let out1 = ''
    let out2 = ''
    first.child.stdout!.on('data', (d: Buffer) => (out1 += d.toString()))
    second.child.stdout!.on('data', (d: Buffer) => (out2 += d.toString()))
    try {
      // Whichever claimed first runs; the other waits.
      await until(() => (out1.includes('"standby: ') || out2.includes('"standby: ') ? true : undefined), 30_000)
      const [runner, standby, runnerOut, standbyOut] = out1.includes('"standby: ')
        ? [second, first, () => out2, () => out1]
        : [first, second, () => out1, () => out2]
      const runnerName = lines(standbyOut()).find((l) => l.msg.startsWith('standby: '))!.owner!
      expect(runnerName).toMatch(new RegExp(`:${runner.child.pid}$`))
      // Both scopes synced by the runner while the standby looks on.
      await until(() => (lines(runnerOut()).filter((l) => l.msg === 'sync done').length >= 2 ? true : undefined), 60_000).catch(
        (e: Error) => {
          throw new Error(`${e.message}\nrunner:\n${runnerOut().slice(-3000)}\nstandby:\n${standbyOut().slice(-3000)}`)
        }
      )
      expect(lines(standbyOut()).filter((l) => l.msg === 'sync started')).toEqual([])
      const s = await statusJson(url)
      expect(s.code).toBe(0)
      for (const scope of s.body.scopes)
        expect(scope).toMatchObject({ worker: runnerName, standby: expect.stringMatching(new RegExp(`:${standby.child.pid}$`)) })
      const text = await runCli(cli, ['team', 'status', '--db', url, '--schema', 'acme'], ENV)
      expect(text.stdout).toMatch(/standby: .* waits to take over/)
      expect(service.admin.stats().byStatus['429'] ?? 0).toBe(0)

      // Killed: the standby takes each scope over and keeps it fresh.
      // New calls within the look-back: the standby's first cycle must fetch them.
      service.admin.addCalls(300, { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date().toISOString() })
      runner.child.kill('SIGKILL')
      const mark = standbyOut().length
      // Each scope synced by the standby (a quick scope may be synced twice before the other).
      const doneScopes = (): Set<string | undefined> =>
        new Set(
          lines(standbyOut().slice(mark))
            .filter((l) => l.msg === 'sync done')
            .map((l) => l.scope)
        )
      await until(() => (doneScopes().size >= 2 ? true : undefined), 60_000)
      const takeovers = lines(standbyOut().slice(mark)).filter((l) => l.msg === 'taking over the scope')
      expect(takeovers.map((l) => l.scope).sort()).toEqual([...doneScopes()].sort())
      expect(service.admin.stats().byStatus['429'] ?? 0).toBe(0)
      await expectServiceSet(url)
      const after = await statusJson(url)
      for (const scope of after.body.scopes)
        expect(scope).toMatchObject({ worker: expect.stringMatching(new RegExp(`:${standby.child.pid}$`)), standby: null })
    } finally {
      service.admin.setFaults({ latencyMs: LATENCY_MS })
      first.child.kill('SIGKILL')
      second.child.kill('SIGKILL')
      await Promise.all([first.done, second.done])
    }
  }, 180_000)

  it('status exits failing after the service password was changed, with the error and its detail', async () => {
    // With membership passes: their rows are marked failing too.
    const { url, config } = await setUp({ memberships: true })
    const ok = await runCli(cli, ['worker', '--config', config, '--once'], ENV)
    expect(ok.code, ok.stderr).toBe(0)
    // A --once run that ended: no worker owns the scopes now.
    expect((await statusJson(url)).code).toBe(15)
    const refused = await runCli(cli, ['worker', '--config', config, '--once'], { ...ENV, CALLSIGHT_PASSWORD: 'rotated-elsewhere' })
    expect(refused.code).not.toBe(0)
    const s = await statusJson(url)
    expect(s.code).toBe(14)
    expect(s.body.scopes.length).toBeGreaterThan(2)
    for (const scope of s.body.scopes) {
      expect(scope.health).toBe('failing')
      expect(scope.failingSince).toEqual(expect.any(String))
      expect(scope.lastError?.code).toBe('InvalidCredentials')
      expect(scope.lastError?.detail).toMatch(/InvalidCredentials|401|password/i)
      expect(scope.lastError?.detail).not.toMatch(/rotated-elsewhere/)
    }
    const text = await runCli(cli, ['team', 'status', '--db', url, '--schema', 'acme'], ENV)
    expect(text.code).toBe(14)
    expect(text.stdout).toMatch(/failing since /)
    expect(text.stdout).toMatch(/detail: /)
    // A failure again keeps the streak's start.
    await runCli(cli, ['worker', '--config', config, '--once'], { ...ENV, CALLSIGHT_PASSWORD: 'rotated-elsewhere' })
    expect((await statusJson(url)).body.scopes[0]!.failingSince).toBe(s.body.scopes[0]!.failingSince)
  }, 120_000)

  it('writes a Prometheus metrics file; stored counts calls changed, not fetched; status --db shows a workstation behind', async () => {
    const { url, config } = await setUp()
    const file = join(tmp.dir, 'worker.prom')
    const parse = (): Map<string, number> =>
      new Map(
        readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => l !== '' && !l.startsWith('#'))
          .map((l) => {
            const at = l.lastIndexOf(' ')
            return [l.slice(0, at), Number(l.slice(at + 1))] as [string, number]
          })
      )
    const first = await runCli(cli, ['worker', '--config', config, '--once', '--metrics', file], ENV)
    expect(first.code, first.stderr).toBe(0)
    const total = service.admin.dump().length
    let m = parse()
    expect(m.get('callsight_team_calls')).toBe(total)
    expect(m.get('callsight_worker_changes_applied_total')).toBeGreaterThanOrEqual(total)
    expect(m.get('callsight_worker_requests_total')).toBeGreaterThan(0)
    expect(m.get('callsight_worker_rate_limited_total')).toBe(0)
    expect(m.get('callsight_worker_up')).toBe(0)
    for (const scope of ['everything', 'answered inbound']) {
      expect(m.get(`callsight_worker_last_success_seconds{scope="${scope}"}`)).toBeGreaterThan(Date.now() / 1000 - 600)
      expect(m.get(`callsight_worker_lag_seconds{scope="${scope}"}`)).toBeGreaterThanOrEqual(0)
    }
    // A workstation pulls: status --db says it is at the team cache's newest change.
    const workstation = join(tmp.dir, 'workstation.sqlite')
    const pulled = await runCli(cli, ['pull', '--from', url, '--db', workstation, '--schema', 'acme'], ENV)
    expect(pulled.code, pulled.stderr).toBe(0)
    const fresh = async (): Promise<{
      calls: number
      cursor: number
      teamCache: { reachable: boolean; lastChange: number; behind: number }
    }> => {
      const r = await runCli(cli, ['status', '--db', workstation, '--schema', 'acme', '--json'], ENV)
      expect(r.code, r.stderr).toBe(0)
      return JSON.parse(r.stdout) as {
        calls: number
        cursor: number
        teamCache: { reachable: boolean; lastChange: number; behind: number }
      }
    }
    const before = await fresh()
    expect(before).toMatchObject({ calls: total, teamCache: { reachable: true, behind: 0 } })
    expect(before.cursor).toBe(before.teamCache.lastChange)
    // 100 new calls: the look-back is fetched again (the inbound scope's calls too, already
    // stored by the first scope), and only the new calls are changed.
    const now = Date.now()
    service.admin.addCalls(100, { from: new Date(now - 3_600_000).toISOString(), to: new Date(now).toISOString() })
    const again = await runCli(cli, ['worker', '--config', config, '--once', '--metrics', file], ENV)
    expect(again.code, again.stderr).toBe(0)
    m = parse()
    expect(m.get('callsight_worker_calls_fetched_total')).toBeGreaterThan(100)
    expect(m.get('callsight_worker_changes_applied_total')).toBe(100)
    expect(m.get('callsight_team_calls')).toBe(total + 100)
    const done = lines(again.stdout).filter((l) => l.msg === 'sync done')
    expect(done.map((l) => l.stored)).toEqual([100, 0])
    expect(done[1]!.fetched).toBeGreaterThan(0)
    const behind = await fresh()
    expect(behind.cursor).toBe(before.cursor)
    expect(behind.teamCache.behind).toBeGreaterThanOrEqual(100)
  }, 120_000)
})
