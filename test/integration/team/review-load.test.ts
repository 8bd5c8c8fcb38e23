import { performance } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectionOf } from '../../../src/core/cache/call-cache'
import { pullReview, pushReview, type PushResult } from '../../../src/core/team'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { connectAs, SCHEMA, setUpTenant, workstation, type Workstation } from './review-support'

let cluster: PgCluster
const tmp = tempDir('callsight-review-load-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

const REVIEWERS = 20
const SAVES = 200
const PUSH_EVERY = 40

/**
 * What a crash between the team cache's commit and the outbox's delete leaves: the changes
 * pushed are still queued here. Copies the queue before a push and puts it back after.
 */
async function pushAndLoseTheAnswer(ws: Workstation): Promise<PushResult> {
  const db = connectionOf(ws.cache)
  const queued = db.prepare('SELECT * FROM review_outbox WHERE refused IS NULL').all() as Array<Record<string, unknown>>
  const r = await pushReview({ pool: ws.pool, schema: SCHEMA, cache: ws.cache })
  const put = db.prepare(
    'INSERT OR IGNORE INTO review_outbox (seq, change_id, kind, call_id, field, value, base, at, refused) VALUES (@seq, @change_id, @kind, @call_id, @field, @value, @base, @at, @refused)'
  )
  db.transaction(() => queued.forEach((row) => put.run(row)))()
  return r
}

describe('20 reviewers × 200 saves through the real push path', () => {
  it('all arrive, none is lost, none twice (also when a push is retried after its answer was lost)', async () => {
    const database = await freshDatabase(cluster)
    const names = Array.from({ length: REVIEWERS }, (_, i) => `rev${String(i + 1).padStart(2, '0')}`)
    await setUpTenant(
      cluster,
      database,
      names.map((name) => ({ name }))
    )
    const stations = names.map((n) => workstation(cluster, database, tmp.dir, n))
    let duplicates = 0
    const started = performance.now()
    try {
      // Each reviewer saves 200 times (a note on a call everyone reviews, a status on a call of
      // their own), pushing every 40 saves while the others do the same.
      await Promise.all(
        stations.map(async (ws, i) => {
          for (let j = 0; j < SAVES; j++) {
            ws.save(`shared-${j}`, { note: `${ws.name} on ${j}` })
            ws.save(`${ws.name}-${j}`, { status: j % 2 === 0 ? 'reviewed' : 'follow_up' })
            if ((j + 1) % PUSH_EVERY === 0) {
              const r =
                j + 1 === PUSH_EVERY * 2 && i % 4 === 0
                  ? await pushAndLoseTheAnswer(ws)
                  : await pushReview({ pool: ws.pool, schema: SCHEMA, cache: ws.cache })
              duplicates += r.duplicates
            }
          }
        })
      )
      for (const ws of stations) {
        const r = await pushReview({ pool: ws.pool, schema: SCHEMA, cache: ws.cache })
        duplicates += r.duplicates
        expect(r.waiting).toBe(0)
      }
      const pushedIn = (performance.now() - started) / 1000
      const pullStarted = performance.now()
      const first = stations[0]!
      const pulled = await pullReview({ pool: first.pool, schema: SCHEMA, cache: first.cache })
      const pulledIn = (performance.now() - pullStarted) / 1000
      console.log(
        `review load: ${REVIEWERS} reviewers × ${SAVES} saves (${REVIEWERS * SAVES * 2} changes) pushed in ${pushedIn.toFixed(1)} s; one workstation pulled ${pulled.applied} rows in ${pulledIn.toFixed(1)} s; ${duplicates} changes retried after a lost answer recognised`
      )
      // The changes whose answer was lost came back as duplicates, and were not applied again.
      expect(duplicates).toBeGreaterThan(0)
      const pg = await connectAs(cluster, database, names[1]!)
      try {
        const ev = await pg.query<{ n: string; authors: string; calls: string }>(
          `SELECT count(*) AS n, count(DISTINCT author) AS authors, count(DISTINCT call_id) AS calls FROM ${SCHEMA}.evaluations`
        )
        expect(ev.rows[0]).toEqual({ n: String(REVIEWERS * SAVES), authors: String(REVIEWERS), calls: String(SAVES) })
        const fields = await pg.query<{ n: string }>(`SELECT count(*) AS n FROM ${SCHEMA}.review_fields`)
        expect(fields.rows[0]!.n).toBe(String(REVIEWERS * SAVES))
        // Every change numbered once: no row was written twice under two numbers.
        const seqs = await pg.query<{ n: string; d: string }>(
          `SELECT count(*) AS n, count(DISTINCT seq) AS d FROM (SELECT seq FROM ${SCHEMA}.evaluations UNION ALL SELECT seq FROM ${SCHEMA}.review_fields) s`
        )
        expect(seqs.rows[0]!.n).toBe(seqs.rows[0]!.d)
        // Each note is its author's last for that call.
        const wrong = await pg.query(`SELECT 1 FROM ${SCHEMA}.evaluations WHERE note <> author || ' on ' || substr(call_id, 8)`)
        expect(wrong.rowCount).toBe(0)
      } finally {
        await pg.end()
      }
      // One workstation now has everyone's work.
      expect(first.cache.review.share.teamEvaluations('shared-7')).toHaveLength(REVIEWERS - 1)
      const statuses = connectionOf(first.cache).prepare("SELECT count(*) FROM annotations WHERE call_id LIKE 'rev%'").pluck().get()
      expect(statuses).toBe(REVIEWERS * SAVES)
      expect(first.cache.review.annotations.get('rev20-199')).toMatchObject({ status: 'follow_up', updatedBy: 'rev20' })
    } finally {
      await Promise.all(stations.map((s) => s.close()))
    }
  }, 300_000)
})
