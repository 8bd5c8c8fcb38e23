import type pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  answerCalibration,
  calibrationView,
  createCalibration,
  setCalibrationReference,
  submitCalibration
} from '../../../src/core/review/calibration'
import { myAssignments, spreadList } from '../../../src/core/review/lead-view'
import { createList, saveScorecard } from '../../../src/core/review/review-service'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { connectAs, SCHEMA, setUpTenant, workstation, reviewContextOf, syncReview } from './review-support'

let cluster: PgCluster
const tmp = tempDir('callsight-review-team-work-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

/** What a role reads of a table by hand (psql), row-level security applied. */
async function readAs(c: pg.Client, sql: string): Promise<Array<Record<string, unknown>>> {
  return (await c.query(sql)).rows as Array<Record<string, unknown>>
}

const CARD = {
  name: 'Basics',
  criteria: [
    { id: 'greet', name: 'Greeting', weight: 1, scale: '1_5' as const, critical: false },
    { id: 'solve', name: 'Solved', weight: 2, scale: 'yes_no' as const, critical: true }
  ]
}

describe('assignments and calibration rounds shared through the team cache', () => {
  it("a lead's assignments reach the reviewers, their progress reaches the lead, and a round is blind in the database until each submits", async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'lena', lead: true }, { name: 'ayse' }, { name: 'mehmet' }])
    const lena = workstation(cluster, database, tmp.dir, 'lena')
    const ayse = workstation(cluster, database, tmp.dir, 'ayse')
    const mehmet = workstation(cluster, database, tmp.dir, 'mehmet')
    const as: Record<string, pg.Client> = {}
    try {
      // The lead samples a list and spreads it over two reviewers.
      const card = saveScorecard(reviewContextOf(lena), CARD)
      const list = createList(reviewContextOf(lena), 'Week 48', { kind: 'ids', ids: ['c1', 'c2', 'c3', 'c4'] })
      spreadList(reviewContextOf(lena), list.id, ['ayse', 'mehmet'], false)
      await syncReview(lena)
      expect(lena.cache.review.share.waiting()).toBe(0)

      // Each reviewer's workstation gets the list and its own assignments, next unreviewed first.
      await syncReview(ayse)
      await syncReview(mehmet)
      const aMine = myAssignments(ayse.cache, 'ayse')
      expect(aMine.items.map((i) => i.callId)).toEqual(['c1', 'c3'])
      expect(myAssignments(mehmet.cache, 'mehmet').items.map((i) => i.callId)).toEqual(['c2', 'c4'])
      expect(ayse.cache.review.reviewLists.callIds(list.id)).toEqual(['c1', 'c2', 'c3', 'c4'])
      expect(ayse.cache.review.assignments.ofList(list.id).find((r) => r.callId === 'c1')?.reviewer).toBe('ayse')

      // A reviewer's own list stays on the reviewer's workstation: only leads share lists.
      createList(reviewContextOf(ayse), 'Mine only', { kind: 'ids', ids: ['c9'] })
      // The reviewers review: the status is the progress the lead sees.
      ayse.save('c1', { status: 'reviewed' })
      mehmet.save('c2', { status: 'follow_up' })
      mehmet.save('c4', { status: 'reviewed' })
      await syncReview(ayse)
      await syncReview(mehmet)
      expect(ayse.cache.review.share.waiting()).toBe(0)
      await syncReview(lena)
      expect(lena.cache.review.reviewLists.list().map((l) => l.name)).toEqual(['Week 48'])
      expect(lena.cache.review.assignments.progress().byReviewer).toEqual([
        { reviewer: 'ayse', assigned: 2, reviewed: 1 },
        { reviewer: 'mehmet', assigned: 2, reviewed: 2 }
      ])

      // A calibration round of two calls for both reviewers, with the lead's reference.
      const round = createCalibration(reviewContextOf(lena), {
        name: 'Round 1',
        scorecardId: card.id,
        calls: { kind: 'ids', ids: ['c1', 'c2'] },
        reviewers: ['ayse', 'mehmet']
      })
      setCalibrationReference(reviewContextOf(lena), round.id, 'c1', { greet: 4, solve: 1 })
      await syncReview(lena)
      await syncReview(ayse)
      await syncReview(mehmet)
      // The round and its scorecard version reached the reviewers; the reference did not.
      expect(ayse.cache.review.calibration.info(round.id).reviewers).toEqual(['ayse', 'mehmet'])
      expect(ayse.cache.review.scorecards.get(card.id, card.version)?.criteria).toHaveLength(2)
      expect(ayse.cache.review.calibration.reference(round.id)).toEqual({})

      answerCalibration(reviewContextOf(ayse), round.id, 'c1', { greet: 4, solve: 1 })
      answerCalibration(reviewContextOf(ayse), round.id, 'c2', { greet: 2, solve: 0 })
      answerCalibration(reviewContextOf(mehmet), round.id, 'c1', { greet: 5, solve: 1 })
      await syncReview(ayse)
      await syncReview(mehmet)

      // Blind in the database: each role reads as PostgreSQL lets it.
      for (const who of ['lena', 'ayse', 'mehmet']) as[who] = await connectAs(cluster, database, who)
      as['reader'] = await connectAs(cluster, database, `${SCHEMA}_reader`, 'reader-pw-1')
      const authors = async (who: string): Promise<string[]> =>
        (await readAs(as[who]!, `SELECT DISTINCT author FROM ${SCHEMA}.calibration_answers ORDER BY author`)).map((r) =>
          String(r['author'])
        )
      expect(await authors('ayse')).toEqual(['ayse'])
      expect(await authors('mehmet')).toEqual(['mehmet'])
      expect(await authors('reader')).toEqual([])
      expect(await authors('lena')).toEqual(['ayse', 'lena', 'mehmet'])
      // …and so does the pull: mehmet's workstation holds no one else's answers.
      expect([...mehmet.cache.review.calibration.answers(round.id).keys()]).toEqual(['mehmet'])
      expect(calibrationView(mehmet.cache, round.id, 'mehmet').blind).toBe(true)

      // Writes as each role: a reviewer creates no round, changes no assignment, writes no
      // answer as another, and none after submitting.
      const sid = round.id
      await expect(
        as['ayse']!.query(
          `INSERT INTO ${SCHEMA}.team_calibrations (id, name, scorecard_id, scorecard_version, call_ids, reviewers, created_at)
           VALUES (gen_random_uuid(), 'x', 'k', 1, '[]', '["ayse","mehmet"]', 1)`
        )
      ).rejects.toMatchObject({ code: '42501' })
      await expect(
        as['ayse']!.query(`UPDATE ${SCHEMA}.team_review_list_items SET assignee = 'ayse' WHERE call_id = 'c2'`)
      ).rejects.toMatchObject({ code: '42501' })
      await expect(
        as['ayse']!.query(
          `INSERT INTO ${SCHEMA}.calibration_answers (session_id, author, call_id, answers, changed_at) VALUES ('${sid}', 'mehmet', 'c2', '{}', 1)`
        )
      ).rejects.toMatchObject({ code: '42501' })
      // A reader of nothing but the team's calls: no answer of its own.
      await expect(
        as['reader']!.query(
          `INSERT INTO ${SCHEMA}.calibration_answers (session_id, call_id, answers, changed_at) VALUES ('${sid}', 'c2', '{}', 1)`
        )
      ).rejects.toMatchObject({})

      // mehmet submits: the round opens to him — ayse's answers and the reference arrive.
      answerCalibration(reviewContextOf(mehmet), round.id, 'c2', { greet: 2, solve: 0 })
      submitCalibration(reviewContextOf(mehmet), round.id)
      await syncReview(mehmet)
      expect(await authors('mehmet')).toEqual(['ayse', 'lena', 'mehmet'])
      expect(await authors('ayse')).toEqual(['ayse'])
      await expect(
        as['mehmet']!.query(
          `UPDATE ${SCHEMA}.calibration_answers SET answers = '{"greet":1}' WHERE session_id = '${sid}' AND call_id = 'c2'`
        )
      ).rejects.toMatchObject({ code: '42501' })
      const seen = calibrationView(mehmet.cache, round.id, 'mehmet')
      expect(seen.blind).toBe(false)
      expect(seen.others).toEqual([{ reviewer: 'ayse', answers: { c1: { greet: 4, solve: 1 }, c2: { greet: 2, solve: 0 } } }])
      expect(seen.reference).toEqual({ c1: { greet: 4, solve: 1 } })

      // ayse, still answering, has none of mehmet's answers on her workstation.
      await syncReview(ayse)
      expect(calibrationView(ayse.cache, round.id, 'ayse').others).toEqual([])
      submitCalibration(reviewContextOf(ayse), round.id)
      await syncReview(ayse)

      // The lead sees both submissions and the agreement.
      await syncReview(lena)
      const result = calibrationView(lena.cache, round.id, 'lena')
      expect(result.session.submitted.sort()).toEqual(['ayse', 'mehmet'])
      expect(result.result?.reviewers.map((r) => [r.reviewer, r.answered])).toEqual([
        ['ayse', 4],
        ['mehmet', 4]
      ])
      expect(result.result?.percent).not.toBeNull()
      expect(result.others.find((o) => o.reviewer === 'mehmet')?.answers).toEqual({
        c1: { greet: 5, solve: 1 },
        c2: { greet: 2, solve: 0 }
      })
    } finally {
      for (const c of Object.values(as)) await c.end()
      for (const ws of [lena, ayse, mehmet]) await ws.close()
    }
  }, 60_000)
})
