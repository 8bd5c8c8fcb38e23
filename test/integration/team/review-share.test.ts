import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { exportAnnotations } from '../../../src/core/review/transfer'
import { createPool, listAnalysts, pullReview, pushReview, removeAnalyst } from '../../../src/core/team'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { connectAs, passwordOf, SCHEMA, setUpTenant, workstation, syncReview } from './review-support'

let cluster: PgCluster
const tmp = tempDir('callsight-review-share-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

describe('review data shared through the team cache', () => {
  it('two analysts annotate the same calls offline, reconnect, and both see both; a same-field conflict is kept, shown and resolved', async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'ayse' }, { name: 'mehmet' }])
    const ayse = workstation(cluster, database, tmp.dir, 'ayse')
    const mehmet = workstation(cluster, database, tmp.dir, 'mehmet')
    // The same login and the same file, reached through a port where no server listens: offline.
    const offline = workstation(cluster, database, tmp.dir, 'mehmet', 1)
    await offline.close()
    try {
      ayse.save('c1', { status: 'reviewed', note: 'ayse: greeting missed' })
      ayse.save('c2', { tags: ['billing'] })
      mehmet.save('c1', { status: 'follow_up', note: 'mehmet: escalate' })
      mehmet.save('c2', { status: 'in_review' })
      // A status and an evaluation of c1, a team field of c2: three changes each.
      expect(ayse.cache.review.share.waiting()).toBe(3)
      expect(mehmet.cache.review.share.waiting()).toBe(3)

      // PostgreSQL out of reach: the push fails, nothing queued is lost, also across a restart.
      const down = workstation(cluster, database, tmp.dir, 'mehmet', 1)
      down.cache.close()
      down.cache = mehmet.cache
      await expect(pushReview({ pool: down.pool, schema: SCHEMA, cache: mehmet.cache })).rejects.toMatchObject({ code: 'Network' })
      await down.pool.end()
      mehmet.reopen()
      expect(mehmet.cache.review.share.waiting()).toBe(3)
      expect(mehmet.cache.review.annotations.get('c1')?.status).toBe('follow_up')

      // Reconnected: ayse first, then mehmet, then both pull.
      await syncReview(ayse)
      await syncReview(mehmet)
      await syncReview(ayse)
      expect(ayse.cache.review.share.waiting()).toBe(0)
      expect(mehmet.cache.review.share.waiting()).toBe(0)

      // Fields of the same call changed by different people merge field by field.
      for (const ws of [ayse, mehmet]) {
        const c2 = ws.cache.review.annotations.get('c2')!
        expect(c2.tags).toEqual(['billing'])
        expect(c2.status).toBe('in_review')
      }
      // Each one's evaluation is theirs; the other's is beside it.
      expect(ayse.cache.review.share.teamEvaluations('c1')).toMatchObject([{ author: 'mehmet', note: 'mehmet: escalate' }])
      expect(mehmet.cache.review.share.teamEvaluations('c1')).toMatchObject([{ author: 'ayse', note: 'ayse: greeting missed' }])
      expect(ayse.cache.review.annotations.get('c1')!.note).toBe('ayse: greeting missed')
      expect(mehmet.cache.review.annotations.get('c1')!.note).toBe('mehmet: escalate')

      // The same field changed by both since either saw it: kept with both values, who and when, on both sides.
      for (const ws of [ayse, mehmet]) {
        const conflicts = ws.cache.review.annotations.get('c1')!.conflicts
        expect(conflicts).toHaveLength(1)
        expect(conflicts![0]).toMatchObject({
          field: 'status',
          theirs: '"reviewed"',
          theirAuthor: 'ayse',
          mine: '"follow_up"',
          myAuthor: 'mehmet'
        })
      }
      // Never silently replaced: the team's value is still ayse's, mehmet's own cache still shows his.
      const team = await connectAs(cluster, database, 'ayse')
      try {
        const row = await team.query(`SELECT value, author FROM ${SCHEMA}.review_fields WHERE call_id = 'c1' AND field = 'status'`)
        expect(row.rows).toEqual([{ value: '"reviewed"', author: 'ayse' }])
      } finally {
        await team.end()
      }

      // A person resolves it (ayse takes mehmet's value); both caches follow, the conflict is gone.
      const id = ayse.cache.review.annotations.get('c1')!.conflicts![0]!.id
      ayse.cache.review.annotations.resolveConflict(id, 'mine', 'ayse', Date.now())
      expect(ayse.cache.review.annotations.get('c1')!.status).toBe('follow_up')
      await syncReview(ayse)
      await syncReview(mehmet)
      for (const ws of [ayse, mehmet]) {
        const c1 = ws.cache.review.annotations.get('c1')!
        expect(c1.status).toBe('follow_up')
        expect(c1.conflicts).toBeUndefined()
      }
    } finally {
      await ayse.close()
      await mehmet.close()
    }
  }, 60_000)

  it("refuses, as the analyst role itself, writing another analyst's evaluation or an author", async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'ayse' }, { name: 'mehmet' }, { name: 'leyla', lead: true }])
    const mehmet = workstation(cluster, database, tmp.dir, 'mehmet')
    mehmet.save('c9', { note: 'his own' })
    await syncReview(mehmet)
    await mehmet.close()
    const ayse = await connectAs(cluster, database, 'ayse')
    const leyla = await connectAs(cluster, database, 'leyla')
    const reader = await connectAs(cluster, database, `${SCHEMA}_reader`, 'reader-pw-1')
    try {
      // Changing his evaluation: the row is found, and the row-level check refuses it.
      await expect(ayse.query(`UPDATE ${SCHEMA}.evaluations SET note = 'overwritten' WHERE call_id = 'c9'`)).rejects.toMatchObject({
        code: '42501',
        message: expect.stringMatching(/row-level security/)
      })
      // Naming an author at all (an insert as him, or moving his row to her): not her column to write.
      await expect(
        ayse.query(
          `INSERT INTO ${SCHEMA}.evaluations (call_id, author, note, created_at, changed_at, change_id) VALUES ('c9', 'mehmet', 'forged', 1, 1, gen_random_uuid())`
        )
      ).rejects.toMatchObject({ code: '42501' })
      await expect(ayse.query(`UPDATE ${SCHEMA}.evaluations SET author = 'ayse' WHERE call_id = 'c9'`)).rejects.toMatchObject({
        code: '42501'
      })
      await expect(ayse.query(`UPDATE ${SCHEMA}.review_fields SET author = 'mehmet'`)).rejects.toMatchObject({ code: '42501' })
      // A team field written by her is hers, whoever wrote it before.
      await ayse.query(
        `INSERT INTO ${SCHEMA}.review_fields (call_id, field, value, changed_at, change_id) VALUES ('c9', 'status', '"reviewed"', 1, gen_random_uuid())`
      )
      const row = await ayse.query(`SELECT author FROM ${SCHEMA}.review_fields WHERE call_id = 'c9'`)
      expect(row.rows).toEqual([{ author: 'ayse' }])
      // Lists are the lead's; analysts and the shared reader only read them.
      const list = `INSERT INTO ${SCHEMA}.team_review_lists (id, name, source, created_at) VALUES (gen_random_uuid(), 'week 2', '{}', 1)`
      await expect(ayse.query(list)).rejects.toMatchObject({ code: '42501' })
      await leyla.query(list)
      expect((await reader.query(`SELECT name FROM ${SCHEMA}.team_review_lists`)).rows).toEqual([{ name: 'week 2' }])
      expect((await reader.query(`SELECT note FROM ${SCHEMA}.evaluations`)).rows).toEqual([{ note: 'his own' }])
      await expect(reader.query(`UPDATE ${SCHEMA}.evaluations SET note = 'x'`)).rejects.toMatchObject({
        code: expect.stringMatching(/^(42501|25006)$/)
      })
    } finally {
      await Promise.all([ayse.end(), leyla.end(), reader.end()])
    }
  }, 60_000)

  it("remove-analyst ends the role's access, its rows stay, and its queued changes are refused and kept for export", async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'ayse' }, { name: 'mehmet' }])
    const mehmet = workstation(cluster, database, tmp.dir, 'mehmet')
    const admin = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
    try {
      mehmet.save('c1', { status: 'reviewed', note: 'pushed before' })
      await syncReview(mehmet)
      const open = await connectAs(cluster, database, 'mehmet')
      const ended = new Promise<unknown>((resolve) => open.once('error', resolve))
      // Offline, he keeps working.
      mehmet.save('c2', { status: 'follow_up' })

      const r = await removeAnalyst(admin, SCHEMA, 'mehmet')
      expect(r.sessionsEnded).toBeGreaterThanOrEqual(1)
      await ended
      await expect(connectAs(cluster, database, 'mehmet')).rejects.toMatchObject({ code: '28P01' })
      const names = (await listAnalysts(admin, SCHEMA)).map((a) => a.name)
      expect(names).toContain('ayse')
      expect(names).not.toContain('mehmet')
      const rows = await admin.query(
        `SELECT author, field FROM ${SCHEMA}.review_fields UNION ALL SELECT author, 'evaluation' FROM ${SCHEMA}.evaluations ORDER BY 2`
      )
      expect(rows.rows).toEqual([
        { author: 'mehmet', field: 'evaluation' },
        { author: 'mehmet', field: 'status' }
      ])

      await expect(pushReview({ pool: mehmet.pool, schema: SCHEMA, cache: mehmet.cache })).rejects.toMatchObject({
        code: 'InvalidCredentials',
        message: expect.stringMatching(/role "mehmet".*1 change\(s\) stay on this computer/)
      })
      expect(mehmet.cache.review.share.waiting()).toBe(0)
      expect(mehmet.cache.review.share.refusedCount()).toBe(1)
      const exported = JSON.parse(exportAnnotations(mehmet.cache, 'json', Date.now()).text) as {
        annotations: Array<{ callId: string; status: string }>
      }
      expect(exported.annotations.find((a) => a.callId === 'c2')?.status).toBe('follow_up')
      expect(passwordOf('mehmet')).toBeTruthy()
    } finally {
      await admin.end()
      await mehmet.close()
    }
  }, 60_000)
  it('bounds hostile or huge rows from the database like a local save: refused and reported, the rest applied', async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'ayse' }])
    const ayse = workstation(cluster, database, tmp.dir, 'ayse')
    // Whoever administers the database can drop the checks and write anything.
    const admin = createPool({ url: cluster.urlFor({ database }), schema: SCHEMA, maxConnections: 1 })
    try {
      await admin.query(`ALTER TABLE ${SCHEMA}.review_fields DROP CONSTRAINT review_fields_value_check`)
      await admin.query(`ALTER TABLE ${SCHEMA}.evaluations DROP CONSTRAINT evaluations_note_check`)
      const field = `INSERT INTO ${SCHEMA}.review_fields (call_id, field, value, changed_at, change_id) VALUES ($1, $2, $3, $4, gen_random_uuid())`
      const now = Date.now()
      await admin.query(field, ['huge', 'tags', JSON.stringify(['x'.repeat(2_000_000)]), now])
      await admin.query(field, ['bad-status', 'status', '"hacked"', now])
      await admin.query(field, ['many-tags', 'tags', JSON.stringify(Array.from({ length: 51 }, (_, i) => `t${i}`)), now])
      await admin.query(field, ['future', 'status', '"reviewed"', now + 86_400_000])
      await admin.query(
        `INSERT INTO ${SCHEMA}.evaluations (call_id, note, created_at, changed_at, change_id) VALUES ('long-note', $1, 1, $2, gen_random_uuid())`,
        ['n'.repeat(20_000), now]
      )
      await admin.query(field, ['fine', 'status', '"reviewed"', now])
      const r = await pullReview({ pool: ayse.pool, schema: SCHEMA, cache: ayse.cache })
      expect(r).toMatchObject({ applied: 1, refused: 5 })
      expect(r.refusals.map((x) => x.message).join('\n')).toMatch(/huge.*more than a pull takes/)
      expect(ayse.cache.review.annotations.count()).toBe(1)
      expect(ayse.cache.review.annotations.get('fine')?.status).toBe('reviewed')
      expect(ayse.cache.review.share.teamEvaluations('long-note')).toEqual([])
      // Refused rows do not hold the cursor back: the next pull has nothing to do.
      expect(await pullReview({ pool: ayse.pool, schema: SCHEMA, cache: ayse.cache })).toMatchObject({ applied: 0, refused: 0 })
    } finally {
      await admin.end()
      await ayse.close()
    }
  }, 60_000)
})
