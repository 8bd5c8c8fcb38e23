import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { answerCalibration, createCalibration, deleteCalibration, submitCalibration } from '../../../src/core/review/calibration'
import { assignCalls, myAssignments, spreadList } from '../../../src/core/review/lead-view'
import { addToList, createList, deleteList, saveScorecard } from '../../../src/core/review/review-service'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { connectedWorkstation, setUpTenant, workstation, type ConnectedWorkstation, reviewContextOf, syncReview } from './review-support'

/**
 * Deleting a review list or a calibration round is shared (schema 9's tombstones): a lead's
 * deletion reaches every workstation by pull and by live delivery, nothing older brings it
 * back, and an analyst's deletion is refused by the team cache and undone on its workstation.
 */
let cluster: PgCluster
const tmp = tempDir('callsight-review-tombstones-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

const CARD = { name: 'Basics', criteria: [{ id: 'greet', name: 'Greeting', weight: 1, scale: '1_5' as const, critical: false }] }

const connected = (database: string, name: string): ConnectedWorkstation => connectedWorkstation(cluster, database, tmp.dir, name)

/** How many rows the team cache holds, read as its owner (row-level security aside). */
async function teamRows(database: string, sql: string, params: unknown[]): Promise<number> {
  const c = new pg.Client({ connectionString: cluster.urlFor({ database }) })
  await c.connect()
  try {
    return (await c.query(sql, params)).rowCount ?? 0
  } finally {
    await c.end()
  }
}

describe('deleting review lists and calibration rounds, shared', () => {
  it("a lead's deletion of a list leaves every workstation, live too; nothing older brings it back; an analyst's is undone", async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'lena', lead: true }, { name: 'omar', lead: true }, { name: 'ayse' }])
    const lena = workstation(cluster, database, tmp.dir, 'lena')
    const omar = workstation(cluster, database, tmp.dir, 'omar')
    const ayse = connected(database, 'ayse')
    try {
      const list = createList(reviewContextOf(lena), 'Week 48', { kind: 'ids', ids: ['c1', 'c2', 'c3', 'c4'] })
      const kept = createList(reviewContextOf(lena), 'Week 49', { kind: 'ids', ids: ['c7', 'c8'] })
      spreadList(reviewContextOf(lena), list.id, ['ayse', 'omar'], false)
      assignCalls(reviewContextOf(lena), kept.id, ['c7', 'c8'], 'ayse')
      await syncReview(lena)
      await syncReview(omar)
      ayse.live.start()
      await ayse.until(() => ayse.ws.cache.review.reviewLists.exists(list.id) && ayse.live.listening)
      expect(myAssignments(ayse.ws.cache, 'ayse').items.map((i) => i.callId)).toEqual(['c1', 'c3', 'c7', 'c8'])

      // Omar, the other lead, adds a call and assigns it while offline: queued, not pushed yet.
      addToList(reviewContextOf(omar), list.id, ['c5'])
      assignCalls(reviewContextOf(omar), list.id, ['c5'], 'omar')

      // The lead deletes the list on her workstation and shares it: the reviewer's app gets it live.
      deleteList(reviewContextOf(lena), list.id)
      expect(lena.cache.review.reviewLists.exists(list.id)).toBe(false)
      await syncReview(lena)
      await ayse.until(() => !ayse.ws.cache.review.reviewLists.exists(list.id))
      expect(myAssignments(ayse.ws.cache, 'ayse').items.map((i) => i.callId)).toEqual(['c7', 'c8'])
      expect(await teamRows(database, `SELECT 1 FROM acme.team_review_list_items WHERE list_id = $1`, [list.id])).toBe(0)

      // Omar's older change is pushed after the deletion: it does not bring the list back, and his pull deletes it.
      await syncReview(omar)
      expect(omar.cache.review.reviewLists.exists(list.id)).toBe(false)
      expect(myAssignments(omar.cache, 'omar').items).toEqual([])
      expect(await teamRows(database, `SELECT 1 FROM acme.team_review_lists WHERE id = $1`, [list.id])).toBe(0)
      expect(await teamRows(database, `SELECT 1 FROM acme.team_review_list_items WHERE list_id = $1`, [list.id])).toBe(0)

      // A pull from the start (a workstation set up anew) does not bring it back either.
      for (const ws of [lena, omar]) {
        ws.cache.review.share.setValue('cursor', '0')
        await syncReview(ws)
        expect(ws.cache.review.reviewLists.exists(list.id)).toBe(false)
        expect(ws.cache.review.reviewLists.exists(kept.id)).toBe(true)
      }

      // The analyst deletes the lead's other list: refused by the team cache, and back on her workstation.
      await ayse.live.stop()
      deleteList(reviewContextOf(ayse.ws), kept.id)
      expect(ayse.ws.cache.review.reviewLists.exists(kept.id)).toBe(false)
      await syncReview(ayse.ws)
      expect(ayse.ws.cache.review.share.waiting()).toBe(0)
      expect(ayse.ws.cache.review.reviewLists.callIds(kept.id)).toEqual(['c7', 'c8'])
      expect(ayse.ws.cache.review.assignments.ofList(kept.id).map((r) => r.reviewer)).toEqual(['ayse', 'ayse'])
      expect(await teamRows(database, `SELECT 1 FROM acme.team_review_lists WHERE id = $1`, [kept.id])).toBe(1)
      expect(await teamRows(database, `SELECT 1 FROM acme.review_tombstones WHERE id = $1`, [kept.id])).toBe(0)
      await syncReview(lena)
      expect(lena.cache.review.reviewLists.exists(kept.id)).toBe(true)
    } finally {
      await ayse.close()
      await lena.close()
      await omar.close()
    }
  }, 90_000)

  it("a lead's deletion of a calibration round takes its answers and submissions everywhere; a late answer does not bring it back", async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'lena', lead: true }, { name: 'ayse' }, { name: 'mehmet' }])
    const lena = workstation(cluster, database, tmp.dir, 'lena')
    const ayse = workstation(cluster, database, tmp.dir, 'ayse')
    const mehmet = workstation(cluster, database, tmp.dir, 'mehmet')
    try {
      const card = saveScorecard(reviewContextOf(lena), CARD)
      const round = { name: 'R1', scorecardId: card.id, calls: { kind: 'ids' as const, ids: ['c1', 'c2'] }, reviewers: ['ayse', 'mehmet'] }
      const r1 = createCalibration(reviewContextOf(lena), round)
      const r2 = createCalibration(reviewContextOf(lena), { ...round, name: 'R2' })
      await syncReview(lena)
      await syncReview(ayse)
      await syncReview(mehmet)
      answerCalibration(reviewContextOf(ayse), r1.id, 'c1', { greet: 4 })
      submitCalibration(reviewContextOf(ayse), r1.id)
      await syncReview(ayse)
      // Mehmet answers offline: his answer waits in his outbox.
      answerCalibration(reviewContextOf(mehmet), r1.id, 'c1', { greet: 2 })

      deleteCalibration(reviewContextOf(lena), r1.id)
      await syncReview(lena)
      expect(await teamRows(database, `SELECT 1 FROM acme.calibration_answers WHERE session_id = $1`, [r1.id])).toBe(0)
      expect(await teamRows(database, `SELECT 1 FROM acme.calibration_submissions WHERE session_id = $1`, [r1.id])).toBe(0)

      await syncReview(ayse)
      expect(ayse.cache.review.calibration.exists(r1.id)).toBe(false)
      expect(ayse.cache.review.calibration.list().map((s) => s.id)).toEqual([r2.id])

      // The late answer is pushed after the deletion: dropped, and the round leaves his workstation.
      await syncReview(mehmet)
      expect(mehmet.cache.review.share.waiting()).toBe(0)
      expect(mehmet.cache.review.calibration.exists(r1.id)).toBe(false)
      expect(await teamRows(database, `SELECT 1 FROM acme.team_calibrations WHERE id = $1`, [r1.id])).toBe(0)
      expect(await teamRows(database, `SELECT 1 FROM acme.calibration_answers WHERE session_id = $1`, [r1.id])).toBe(0)
      mehmet.cache.review.share.setValue('cursor', '0')
      await syncReview(mehmet)
      expect(mehmet.cache.review.calibration.exists(r1.id)).toBe(false)

      // An analyst deleting the lead's round: refused, and the round is back on her workstation.
      answerCalibration(reviewContextOf(ayse), r2.id, 'c2', { greet: 5 })
      await syncReview(ayse)
      deleteCalibration(reviewContextOf(ayse), r2.id)
      expect(ayse.cache.review.calibration.exists(r2.id)).toBe(false)
      await syncReview(ayse)
      expect(ayse.cache.review.calibration.exists(r2.id)).toBe(true)
      expect(ayse.cache.review.calibration.answersOf(r2.id, 'ayse', 'c2')).toEqual({ greet: 5 })
      expect(await teamRows(database, `SELECT 1 FROM acme.team_calibrations WHERE id = $1`, [r2.id])).toBe(1)
    } finally {
      await lena.close()
      await ayse.close()
      await mehmet.close()
    }
  }, 90_000)
})
