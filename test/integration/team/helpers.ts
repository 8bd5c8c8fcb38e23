/**
 * Real parts for the team cache tests: the reference service over HTTP on 127.0.0.1, the
 * real session and limiter, a throwaway PostgreSQL cluster (test/support/pg-cluster.ts),
 * real SQLite files.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, expect } from 'vitest'
import { createServiceClient } from '../../../src/core/client'
import { createAesGcmCipher } from '../../../src/core/crypto/aes-cipher'
import { MemoryStore, silentLogger, systemClock } from '../../../src/core/platform/node'
import { TenantRateLimiter } from '../../../src/core/ratelimit'
import { Session, TokenVault } from '../../../src/core/session'
import { SyncEngine, WaitFeed, type SyncStore } from '../../../src/core/sync'
import type { RateLimit } from '../../../src/shared/domain'
import { startService, type RunningService, type ServiceOptions } from '../../../src/reference-service'
import { openCache, type CallCache } from '../../../src/core/cache'
import { createPool, PgSyncStore, pullTeamCache, TeamWorker, WorkerConfig, type PullProgress } from '../../../src/core/team'
import { membershipPlan } from '../../../src/core/team/worker-memberships'
import type { Logger } from '../../../src/core/platform'
import { DEFAULT_CATALOG } from '../../../src/reference-service/config'
import type { TeamWindow } from '../../../src/shared/team'
import { runCli } from '../cli/helpers'
import { FAST_TEST_SETTINGS, PG_SUPERUSER, PG_SUPERUSER_PASSWORD, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { connectionOf } from '../../../src/core/cache/call-cache'

export const ZONE = 'Europe/Istanbul'
export const FROM = '2026-01-05T06:00:00Z'
export const TO = '2026-01-05T18:00:00Z'
export const FROM_MS = Date.parse(FROM)
export const TO_MS = Date.parse(TO) + 1000

export async function startTestService(opts: ServiceOptions = {}): Promise<RunningService> {
  return startService({
    port: 0,
    calls: 3000,
    seed: 11,
    from: FROM,
    to: TO,
    tz: ZONE,
    rateLimit: { requests: 600, perSeconds: 1 },
    quiet: true,
    ...opts
  })
}

export async function signedInSession(
  service: RunningService,
  rateLimit: RateLimit = { requests: 600, perSeconds: 1 }
): Promise<{ session: Session; waits: WaitFeed }> {
  const waits = new WaitFeed()
  const limiter = new TenantRateLimiter(rateLimit, { onWait: waits.emit, marginMs: 50 })
  const client = createServiceClient({
    baseUrl: service.url,
    zone: ZONE,
    fetch: (i, init) => fetch(i, init),
    limiter,
    maxRetries: 8,
    retry: { baseDelayMs: 20, maxDelayMs: 200 }
  })
  const vault = new TokenVault(new MemoryStore(), createAesGcmCipher(Buffer.alloc(32, 7)), 'test')
  const session = new Session({ client, vault })
  await session.login('demo', 'demo')
  return { session, waits }
}

export function engineFor(session: Session, cache: SyncStore, lookbackHours = 48): SyncEngine {
  return new SyncEngine({
    source: session,
    cache,
    clock: systemClock,
    logger: silentLogger,
    rateLimit: { requests: 600, perSeconds: 1 },
    lookbackHours
  })
}

export function tempDir(prefix: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/**
 * Before the file's tests: a throwaway PostgreSQL cluster (fast settings), the reference
 * service with `opts`, and a temporary directory; after them, all three stopped and removed.
 * The fields are filled once the file's beforeAll has run.
 */
export function useClusterAndService(
  opts: ServiceOptions,
  dirPrefix: string
): { readonly cluster: PgCluster; readonly service: RunningService; readonly dir: string } {
  const tmp = tempDir(dirPrefix)
  let cluster: PgCluster | undefined
  let service: RunningService | undefined
  beforeAll(async () => {
    cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
    service = await startTestService(opts)
  }, 60_000)
  afterAll(async () => {
    await service?.stop()
    await cluster?.stop()
    tmp.remove()
  })
  return {
    get cluster() {
      if (!cluster) throw new Error('the cluster is started in beforeAll')
      return cluster
    },
    get service() {
      if (!service) throw new Error('the reference service is started in beforeAll')
      return service
    },
    dir: tmp.dir
  }
}

let dbCounter = 0
/** A fresh database in the cluster, so that tests of one file do not see each other's rows. */
export async function freshDatabase(cluster: PgCluster): Promise<string> {
  const name = `t${process.pid}_${++dbCounter}`
  await cluster.sql(`CREATE DATABASE ${name}`)
  return name
}

/** What a cache holds, in a form two caches can be compared by. */
export interface CacheContent {
  calls: Map<string, { callAt: number; callDate: string; title: string; summary: string; extra: string; analysis: string | null }>
  members: Set<string>
  scopes: Map<string, { filters: string; coverage: string }>
}

export function sqliteContent(cache: CallCache): CacheContent {
  const calls = new Map<string, CacheContent['calls'] extends Map<string, infer V> ? V : never>()
  const rows = connectionOf(cache)
    .prepare('SELECT id, call_id, call_at, call_date, title, summary, extra, analysis_known FROM calls')
    .all() as Array<{
    id: number
    call_id: string
    call_at: number
    call_date: string
    title: string
    summary: string
    extra: string
    analysis_known: 0 | 1
  }>
  for (const r of rows) {
    // The stored items in order, read as the cache reads them (analysis lists, schema 19).
    const list = cache.getCall(r.call_id)!.analysis.map((i) => [i.key, i.friendlyName, i.value])
    calls.set(r.call_id, {
      callAt: r.call_at,
      callDate: r.call_date,
      title: r.title,
      summary: r.summary,
      extra: r.extra,
      analysis: r.analysis_known === 0 ? null : JSON.stringify(list)
    })
  }
  const members = new Set(
    (
      connectionOf(cache)
        .prepare(
          'SELECT s.scope_key AS k, c.call_id AS id FROM scope_members m JOIN sync_scopes s ON s.id = m.scope JOIN calls c ON c.id = m.call'
        )
        .all() as Array<{ k: string; id: string }>
    ).map((m) => `${m.k}|${m.id}`)
  )
  const scopes = new Map(
    (
      connectionOf(cache).prepare('SELECT scope_key, filters, coverage FROM sync_scopes').all() as Array<{
        scope_key: string
        filters: string
        coverage: string
      }>
    ).map((s) => [s.scope_key, { filters: s.filters, coverage: s.coverage }])
  )
  return { calls, members, scopes }
}

export async function pgContent(url: string, schema: string): Promise<CacheContent> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    const calls = new Map<string, CacheContent['calls'] extends Map<string, infer V> ? V : never>()
    const rows = await c.query<{
      call_id: string
      call_at: string
      call_date: string
      title: string
      summary: string
      extra: string
      analysis: string | null
    }>(`SELECT call_id, call_at, call_date, title, summary, extra, analysis FROM "${schema}".calls`)
    for (const r of rows.rows) {
      calls.set(r.call_id, {
        callAt: Number(r.call_at),
        callDate: r.call_date,
        title: r.title,
        summary: r.summary,
        extra: r.extra,
        analysis: r.analysis
      })
    }
    const m = await c.query<{ k: string; id: string }>(
      `SELECT s.scope_key AS k, m.call_id AS id FROM "${schema}".scope_members m JOIN "${schema}".scopes s ON s.id = m.scope_id`
    )
    const s = await c.query<{ scope_key: string; filters: string; coverage: string }>(
      `SELECT scope_key, filters, coverage FROM "${schema}".scopes`
    )
    return {
      calls,
      members: new Set(m.rows.map((x) => `${x.k}|${x.id}`)),
      scopes: new Map(s.rows.map((x) => [x.scope_key, { filters: x.filters, coverage: x.coverage }]))
    }
  } finally {
    await c.end()
  }
}

/** The scopes' keys in the team cache's worker state, by the scopes' names. */
export async function scopeKeys(url: string, schema = 'acme'): Promise<Record<string, string>> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    const r = await c.query<{ name: string; scope_key: string }>(`SELECT name, scope_key FROM "${schema}".worker_scopes`)
    return Object.fromEntries(r.rows.map((x) => [x.name, x.scope_key]))
  } finally {
    await c.end()
  }
}

/**
 * A team cache kept by a real worker: a fresh database of the cluster with schema "acme", a
 * worker config of `scopes` (no membership passes, no slow full pass) and one cycle of
 * `callsight worker --once` over the reference service. The scopes' keys by name.
 */
export async function workerCycle(
  team: { readonly cluster: PgCluster; readonly dir: string },
  service: RunningService,
  cli: string,
  scopes: ReadonlyArray<Record<string, unknown>>
): Promise<{ database: string; url: string; keys: Record<string, string> }> {
  const database = await freshDatabase(team.cluster)
  const url = team.cluster.urlFor({ database })
  await (await PgSyncStore.open({ url, schema: 'acme', migrate: true })).close()
  const config = join(team.dir, `worker-${database}.json`)
  writeFileSync(
    config,
    JSON.stringify({
      server: service.url,
      user: 'demo',
      zone: ZONE,
      db: team.cluster.credentialsFor({ database, user: PG_SUPERUSER }).url,
      schema: 'acme',
      rateLimit: { requests: 600, perSeconds: 1 },
      intervalMinutes: 0.02,
      scopes,
      memberships: false,
      fullPassEvery: false
    })
  )
  const worker = await runCli(cli, ['worker', '--config', config, '--once'], { PGPASSWORD: PG_SUPERUSER_PASSWORD })
  expect(worker.code, worker.stderr + worker.stdout).toBe(0)
  const keys = await scopeKeys(url)
  expect(Object.keys(keys).sort()).toEqual(scopes.map((s) => String(s['name'])).sort())
  return { database, url, keys }
}

/**
 * A workstation's pull of the team cache into `file` (batches of 100 unless told), with the
 * `window` asked for, the pull's clock at `now` and the index deferred when given; `stop` in
 * onProgress cancels it.
 */
export async function pullInto(
  url: string,
  file: string,
  opts: {
    window?: TeamWindow
    now?: number
    batchSize?: number
    deferIndexFrom?: number
    onProgress?: (p: PullProgress, stop: () => void) => void
  } = {}
): ReturnType<typeof pullTeamCache> {
  const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
  const cache = openCache(file)
  const ac = new AbortController()
  const { window, now, deferIndexFrom, onProgress } = opts
  try {
    return await pullTeamCache({
      pool,
      schema: 'acme',
      sourceLabel: url,
      cache,
      batchSize: opts.batchSize ?? 100,
      signal: ac.signal,
      ...(deferIndexFrom !== undefined ? { deferIndexFrom } : {}),
      ...(now !== undefined ? { clock: { now: () => now } } : {}),
      ...(window ? { window } : {}),
      ...(onProgress ? { onProgress: (p: PullProgress) => onProgress(p, () => ac.abort()) } : {})
    })
  } finally {
    cache.close()
    await pool.end()
  }
}

export function withCache<T>(file: string, f: (cache: CallCache) => T): T {
  const cache = openCache(file)
  try {
    return f(cache)
  } finally {
    cache.close()
  }
}

/** The file holds exactly `want`'s calls and memberships (with `scopes`, its scopes too) and is sound. */
export function expectHolds(file: string, want: CacheContent, opts: { scopes?: boolean } = {}): void {
  withCache(file, (cache) => {
    const got = sqliteContent(cache)
    expect(got.calls.size).toBe(want.calls.size)
    expect([...got.calls.keys()].sort()).toEqual([...want.calls.keys()].sort())
    expect(got.calls).toEqual(want.calls)
    expect(got.members).toEqual(want.members)
    if (opts.scopes) expect([...got.scopes.keys()].sort()).toEqual([...want.scopes.keys()].sort())
    expect(connectionOf(cache).pragma('integrity_check', { simple: true })).toBe('ok')
  })
}

/**
 * A worker config for the team cache in `database` (schema "acme") over the reference
 * service, learning the service's whole catalog in its membership passes; `over` adds to it.
 */
export function membershipWorkerConfig(
  team: { readonly cluster: PgCluster; readonly service: RunningService },
  database: string,
  over: Record<string, unknown>
): WorkerConfig {
  return WorkerConfig.parse({
    server: team.service.url,
    user: 'demo',
    zone: ZONE,
    db: team.cluster.credentialsFor({ database }).url,
    schema: 'acme',
    rateLimit: { requests: 600, perSeconds: 1 },
    memberships: { types: DEFAULT_CATALOG.map((t) => ({ value: t.Value, description: t.Description })) },
    ...over
  })
}

/** The worker `callsight worker` builds from `cfg`, in this process, over `store` and `session`. */
export function workerOf(cfg: WorkerConfig, store: PgSyncStore, session: Session, logger: Logger = silentLogger): TeamWorker {
  return new TeamWorker({
    store,
    source: session,
    clock: systemClock,
    logger,
    rateLimit: cfg.rateLimit,
    lookbackHours: cfg.lookbackHours,
    intervalMs: cfg.intervalMinutes * 60_000,
    scopes: cfg.scopes,
    workerName: 'test-worker',
    memberships: membershipPlan(cfg.memberships),
    fullPassEveryMs: cfg.fullPassEvery === false ? null : cfg.fullPassEvery,
    passConcurrency: cfg.passConcurrency
  })
}

/** The team cache's content restricted to the calls dated from `start` on (members of those calls). */
export function within(full: CacheContent, start: number): CacheContent {
  const calls = new Map([...full.calls].filter(([, c]) => c.callAt >= start))
  const members = new Set([...full.members].filter((m) => calls.has(m.slice(m.indexOf('|') + 1))))
  return { calls, members, scopes: full.scopes }
}
