/**
 * Review as a team, through a real PostgreSQL (a throwaway cluster, test/support/pg-cluster.ts):
 *
 * - a local save with sharing on (the outbox insert in the save's transaction) against the
 *   same save with sharing off, alternately in the same run (target ≤ 5 ms p95);
 * - delivery A → B: a save on one connected workstation until it is in another's cache, both
 *   holding the live sync (LISTEN/NOTIFY, core/team/review-live.ts) — no pull by hand
 *   (target ≤ 2 s p95);
 * - 20 reviewers × 200 saves, pushed as they work: how long, and that every change arrived
 *   once (target ≤ 5 minutes; none lost, no duplicate).
 */
import { performance } from 'node:perf_hooks'
import pg from 'pg'
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { createPool, pullReview, pushReview, ReviewLive } from '../src/core/team'
import { startPgCluster } from '../test/support/pg-cluster'
import { passwordOf, SCHEMA, setUpTenant, workstation, type Workstation } from '../test/integration/team/review-support'
import { percentile, type BenchFn, type BenchRow } from './types'

export const run: BenchFn = async (ctx) => {
  const rows: BenchRow[] = []
  const cluster = await startPgCluster({ settings: { fsync: 'off', synchronous_commit: 'off' } })
  try {
    const database = 'review_team'
    await cluster.sql(`CREATE DATABASE ${database}`)
    const reviewers = Array.from({ length: 20 }, (_, i) => `rev${String(i + 1).padStart(2, '0')}`)
    await setUpTenant(cluster, database, [{ name: 'ayse' }, { name: 'mehmet' }, ...reviewers.map((name) => ({ name }))])

    // Local saves, sharing on and off, alternately.
    // As the app opens a cache (with the WAL checkpointer), one sharing and one not.
    const caches = [openCache(join(ctx.workDir, 'save-shared.db')), openCache(join(ctx.workDir, 'save-alone.db'))] as const
    caches[0].review.share.enable(Date.now())
    const saves = ctx.quick ? 300 : 2000
    const on: number[] = []
    const off: number[] = []
    let at = Date.now() - 3_600_000
    for (let i = 0; i < saves; i++) {
      for (const [cache, out] of [
        [caches[0], on],
        [caches[1], off]
      ] as const) {
        const t = performance.now()
        cache.review.annotations.write(
          `local-${i % 500}`,
          { status: i % 2 ? 'reviewed' : 'in_review', note: `note ${i}` },
          { author: 'ayse', at: ++at, history: true }
        )
        out.push(performance.now() - t)
      }
    }
    for (const c of caches) c.close()
    const shared = workstation(cluster, database, ctx.workDir, 'ayse')
    rows.push({
      metric: 'local save with sharing on (outbox in the same transaction)',
      value: percentile(on, 95),
      unit: 'ms p95',
      baseline: percentile(off, 95),
      ratio: percentile(on, 95) / percentile(off, 95),
      target: 5,
      targetKind: 'max',
      note: `${saves} saves each, alternately; baseline: the same save with sharing off; ratio = on / off`
    })

    // Delivery A → B with both live.
    const b = workstation(cluster, database, ctx.workDir, 'mehmet')
    const listenFor = (name: string): pg.Pool =>
      createPool({ url: cluster.urlFor({ database, user: name, password: passwordOf(name) }), schema: SCHEMA, maxConnections: 1 })
    const pools = [listenFor('ayse'), listenFor('mehmet')]
    let arrived: (() => void) | null = null
    let want = ''
    const liveA = new ReviewLive({ pool: shared.pool, listenPool: pools[0]!, schema: SCHEMA, cache: () => shared.cache })
    const liveB = new ReviewLive({
      pool: b.pool,
      listenPool: pools[1]!,
      schema: SCHEMA,
      cache: () => b.cache,
      onSynced: () => {
        if (want && b.cache.review.annotations.get(want)?.status === 'follow_up') arrived?.()
      }
    })
    liveA.start()
    liveB.start()
    await pushReview({ pool: shared.pool, schema: SCHEMA, cache: shared.cache })
    await pullReview({ pool: b.pool, schema: SCHEMA, cache: b.cache })
    const deliveries: number[] = []
    const rounds = ctx.quick ? 10 : 40
    for (let i = 0; i < rounds; i++) {
      want = `deliver-${i}`
      const got = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`delivery ${i} did not arrive in 30 s`)), 30_000)
        arrived = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      const t = performance.now()
      shared.save(want, { status: 'follow_up' })
      liveA.saved()
      await got
      deliveries.push(performance.now() - t)
      await new Promise((r) => setTimeout(r, 50))
    }
    await liveA.stop()
    await liveB.stop()
    for (const p of pools) await p.end()
    rows.push({ metric: 'delivery A → B, both connected (LISTEN/NOTIFY)', value: percentile(deliveries, 50), unit: 'ms p50' })
    rows.push({
      metric: 'delivery A → B, both connected (LISTEN/NOTIFY)',
      value: percentile(deliveries, 95),
      unit: 'ms p95',
      target: 2000,
      targetKind: 'max',
      note: `${rounds} saves, one at a time; from the save until the other workstation's cache holds it`
    })
    await shared.close()
    await b.close()

    // 20 reviewers × 200 saves, each pushing every 40.
    const stations: Workstation[] = reviewers.map((n) => workstation(cluster, database, ctx.workDir, n))
    const per = 200
    const started = performance.now()
    let duplicates = 0
    try {
      await Promise.all(
        stations.map(async (ws) => {
          for (let j = 0; j < per; j++) {
            ws.save(`${ws.name}-${j}`, { status: 'reviewed', note: `${ws.name} ${j}` })
            if ((j + 1) % 40 === 0) duplicates += (await pushReview({ pool: ws.pool, schema: SCHEMA, cache: ws.cache })).duplicates
          }
        })
      )
      const seconds = (performance.now() - started) / 1000
      const c = new pg.Client({ connectionString: cluster.urlFor({ database }) })
      await c.connect()
      const counts = (
        await c.query<{ ev: number; uniq: number }>(
          `SELECT count(*)::int AS ev, count(DISTINCT (call_id, author))::int AS uniq FROM ${SCHEMA}.evaluations WHERE author LIKE 'rev%'`
        )
      ).rows[0]!
      await c.end()
      const waiting = stations.reduce((n, ws) => n + ws.cache.review.share.waiting(), 0)
      rows.push({
        metric: `${reviewers.length} reviewers × ${per} saves pushed as they work`,
        value: seconds,
        unit: 's',
        target: 300,
        targetKind: 'max',
        note: `evaluations in the team cache ${counts.ev} of ${reviewers.length * per} (distinct ${counts.uniq}); still queued ${waiting}; retried ${duplicates}`
      })
    } finally {
      await Promise.all(stations.map((s) => s.close()))
    }
  } finally {
    await cluster.stop()
  }
  return { name: 'review-team', rows }
}
