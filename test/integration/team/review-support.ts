/**
 * Shared review data through a real PostgreSQL: a tenant set up by `teamInit` as the
 * cluster's superuser (the database owner's part), analysts' logins, and one SQLite cache
 * per analyst's workstation with a pool that logs in as that analyst.
 */
import { join } from 'node:path'
import pg from 'pg'
import { openCache, type CallCache } from '../../../src/core/cache'
import type { ReviewContext } from '../../../src/core/review/review-service'
import { addAnalyst, createPool, pullReview, pushReview, teamInit } from '../../../src/core/team'
import { ReviewLive } from '../../../src/core/team/review-live'
import type { FieldChanges } from '../../../src/core/cache/review/annotation-store'
import type { PgCluster } from '../../support/pg-cluster'

export const SCHEMA = 'acme'

export async function setUpTenant(
  cluster: PgCluster,
  database: string,
  analysts: ReadonlyArray<{ name: string; lead?: boolean }>
): Promise<void> {
  const admin = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 2 })
  try {
    await teamInit({
      pool: admin,
      schema: SCHEMA,
      writerRole: `${SCHEMA}_writer`,
      readerRole: `${SCHEMA}_reader`,
      writerPassword: 'writer-pw-1',
      readerPassword: 'reader-pw-1'
    })
    for (const a of analysts) await addAnalyst(admin, SCHEMA, a.name, passwordOf(a.name), a.lead ?? false)
  } finally {
    await admin.end()
  }
}

export const passwordOf = (name: string): string => `pw-of-${name}-1234`

export interface Workstation {
  name: string
  file: string
  cache: CallCache
  pool: pg.Pool
  save(callId: string, changes: FieldChanges, at?: number): void
  reopen(): void
  close(): Promise<void>
}

/** One sharing round of a workstation, as the app runs it: its queued changes pushed, then the team's pulled. */
export async function syncReview(ws: Workstation): Promise<void> {
  await pushReview({ pool: ws.pool, schema: SCHEMA, cache: ws.cache })
  await pullReview({ pool: ws.pool, schema: SCHEMA, cache: ws.cache })
}

let clock = Date.now() - 120_000
/** A review context as the app builds it, writing as the workstation's analyst (no search: sources are ids), each write a millisecond after the last. */
export const reviewContextOf = (ws: Workstation): ReviewContext => ({
  cache: ws.cache,
  search: undefined as never,
  author: ws.name,
  now: () => ++clock,
  zone: 'UTC'
})

/** An analyst's workstation: its own cache file, sharing on, and a pool that logs in as the analyst. */
export function workstation(cluster: PgCluster, database: string, dir: string, name: string, port?: number): Workstation {
  const file = join(dir, `${name}-${database}.sqlite`)
  const url = cluster.urlFor({ database, user: name, password: passwordOf(name) })
  const u = new URL(url)
  if (port !== undefined) u.port = String(port)
  const pool = createPool({ url: u.toString(), schema: SCHEMA, maxConnections: 1 })
  let t = Date.now() - 60_000
  const ws: Workstation = {
    name,
    file,
    cache: openCache(file, { checkpointer: false }),
    pool,
    save(callId, changes, at) {
      t = Math.max(t + 1, at ?? 0)
      ws.cache.review.annotations.write(callId, changes, { author: name, at: t, history: true })
    },
    reopen() {
      ws.cache.close()
      ws.cache = openCache(file, { checkpointer: false })
    },
    async close() {
      ws.cache.close()
      await pool.end()
    }
  }
  ws.cache.review.share.enable(Date.now())
  return ws
}

/** A plain node-postgres client logged in as `user`: what an analyst could do by hand with psql. */
export async function connectAs(cluster: PgCluster, database: string, user: string, password = passwordOf(user)): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: cluster.urlFor({ database, user, password }) })
  c.on('error', () => undefined)
  await c.connect()
  return c
}

/** A connected app's review side: the workstation with its listening connection, and a bounded wait for a sync's result. */
export interface ConnectedWorkstation {
  ws: Workstation
  live: ReviewLive
  listenPool: pg.Pool
  /** Resolves once `done` holds after one of this workstation's syncs; rejects after `ms` (a bound, not a measure). */
  until(done: () => boolean, ms?: number): Promise<void>
  /** Stops the live sync and closes both pools and the cache. */
  close(): Promise<void>
}

export function connectedWorkstation(cluster: PgCluster, database: string, dir: string, name: string): ConnectedWorkstation {
  const ws = workstation(cluster, database, dir, name)
  const listenPool = createPool({
    url: cluster.urlFor({ database, user: name, password: passwordOf(name) }),
    schema: SCHEMA,
    maxConnections: 1
  })
  const waiters = new Set<() => void>()
  const live = new ReviewLive({
    pool: ws.pool,
    listenPool,
    schema: SCHEMA,
    cache: () => ws.cache,
    backoff: { firstMs: 50, maxMs: 400 },
    onSynced: () => {
      for (const w of [...waiters]) w()
    }
  })
  const until = (done: () => boolean, ms = 15_000): Promise<void> =>
    new Promise((resolve, reject) => {
      if (done()) return resolve()
      const check = (): void => {
        if (!done()) return
        clearTimeout(timer)
        waiters.delete(check)
        resolve()
      }
      const timer = setTimeout(() => {
        waiters.delete(check)
        reject(new Error(`${name}: not there after ${ms} ms`))
      }, ms)
      waiters.add(check)
    })
  const close = async (): Promise<void> => {
    await live.stop()
    await listenPool.end()
    await ws.close()
  }
  return { ws, live, listenPool, until, close }
}
