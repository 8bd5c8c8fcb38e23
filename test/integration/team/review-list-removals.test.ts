import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assignCalls, myAssignments, spreadList } from '../../../src/core/review/lead-view'
import { addToList, createList, removeFromList } from '../../../src/core/review/review-service'
import { pullReview } from '../../../src/core/team'
import { syncReview as appSyncReview } from '../../../src/core/team/review-sync'
import { connectionOf } from '../../../src/core/cache/call-cache'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import {
  connectAs,
  connectedWorkstation,
  SCHEMA,
  setUpTenant,
  workstation,
  type ConnectedWorkstation,
  type Workstation,
  reviewContextOf,
  syncReview
} from './review-support'

/**
 * Removing calls from a review list is shared (schema 10's `list-call` tombstones): a lead's
 * removal reaches every workstation live and by pull, an older queued change of the list does
 * not bring the calls back (a later addition on purpose does), and an analyst's removal is
 * refused by PostgreSQL and undone on its workstation.
 */
let cluster: PgCluster
const tmp = tempDir('callsight-review-removals-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

/** The list's calls in the team cache, read as its owner (row-level security aside). */
async function teamCalls(database: string, listId: string): Promise<string[]> {
  const c = new pg.Client({ connectionString: cluster.urlFor({ database }) })
  await c.connect()
  try {
    const r = await c.query<{ call_id: string }>('SELECT call_id FROM acme.team_review_list_items WHERE list_id = $1 ORDER BY position', [
      listId
    ])
    return r.rows.map((x) => x.call_id)
  } finally {
    await c.end()
  }
}

describe('removing calls from a review list, shared', () => {
  it("a lead's removal reaches the others live and by pull; an older queued change does not bring the call back, a later addition does", async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'lena', lead: true }, { name: 'omar', lead: true }, { name: 'ayse' }])
    const lena = workstation(cluster, database, tmp.dir, 'lena')
    const omar = workstation(cluster, database, tmp.dir, 'omar')
    const ayse: ConnectedWorkstation = connectedWorkstation(cluster, database, tmp.dir, 'ayse')
    let fresh: Workstation | undefined
    try {
      const list = createList(reviewContextOf(lena), 'Week 48', { kind: 'ids', ids: ['c1', 'c2', 'c3', 'c4'] })
      spreadList(reviewContextOf(lena), list.id, ['ayse', 'omar'], false)
      await syncReview(lena)
      await syncReview(omar)
      ayse.live.start()
      await ayse.until(() => ayse.ws.cache.review.reviewLists.callIds(list.id).length === 4 && ayse.live.listening)
      expect(myAssignments(ayse.ws.cache, 'ayse').items.map((i) => i.callId)).toEqual(['c1', 'c3'])

      // Omar, the other lead, adds a call while offline: his queued list still holds c3.
      addToList(reviewContextOf(omar), list.id, ['c5'])
      assignCalls(reviewContextOf(omar), list.id, ['c5'], 'omar')

      // The lead removes c3 (Ayşe's) and shares it: the reviewer's app gets it live, assignment included.
      removeFromList(reviewContextOf(lena), list.id, ['c3'])
      expect(lena.cache.review.reviewLists.callIds(list.id)).toEqual(['c1', 'c2', 'c4'])
      await syncReview(lena)
      expect(await teamCalls(database, list.id)).toEqual(['c1', 'c2', 'c4'])
      await ayse.until(() => !ayse.ws.cache.review.reviewLists.callIds(list.id).includes('c3'))
      expect(myAssignments(ayse.ws.cache, 'ayse').items.map((i) => i.callId)).toEqual(['c1'])

      // Omar's older change is pushed after the removal: c5 arrives, c3 stays out, and his pull removes it.
      await syncReview(omar)
      expect(await teamCalls(database, list.id)).toEqual(['c1', 'c2', 'c4', 'c5'])
      expect(omar.cache.review.reviewLists.callIds(list.id)).toEqual(['c1', 'c2', 'c4', 'c5'])

      // A workstation set up anew pulls from the start: the list without c3.
      fresh = workstation(cluster, database, tmp.dir, 'ayse-new')
      await pullReview({ pool: ayse.ws.pool, schema: SCHEMA, cache: fresh.cache })
      expect(fresh.cache.review.reviewLists.callIds(list.id)).toEqual(['c1', 'c2', 'c4', 'c5'])
      lena.cache.review.share.setValue('cursor', '0')
      await syncReview(lena)
      expect(lena.cache.review.reviewLists.callIds(list.id)).toEqual(['c1', 'c2', 'c4', 'c5'])

      // The lead adds c3 again, later: that decision wins over her removal, everywhere.
      addToList(reviewContextOf(lena), list.id, ['c3'])
      await syncReview(lena)
      expect(await teamCalls(database, list.id)).toEqual(['c1', 'c2', 'c4', 'c5', 'c3'])
      await ayse.until(() => ayse.ws.cache.review.reviewLists.callIds(list.id).includes('c3'))
      await syncReview(omar)
      expect(omar.cache.review.reviewLists.callIds(list.id)).toEqual(['c1', 'c2', 'c4', 'c5', 'c3'])
    } finally {
      await ayse.close()
      await lena.close()
      await omar.close()
      if (fresh) await fresh.close()
    }
  }, 90_000)

  it("an analyst's removal is refused by PostgreSQL and the calls come back on her workstation", async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'lena', lead: true }, { name: 'ayse' }])
    const lena = workstation(cluster, database, tmp.dir, 'lena')
    const ayse = workstation(cluster, database, tmp.dir, 'ayse')
    try {
      const list = createList(reviewContextOf(lena), 'Week 49', { kind: 'ids', ids: ['c7', 'c8', 'c9'] })
      assignCalls(reviewContextOf(lena), list.id, ['c7', 'c8'], 'ayse')
      await syncReview(lena)
      await syncReview(ayse)

      const assigned = (): unknown[] => ayse.cache.review.assignments.ofList(list.id).map((r) => [r.callId, r.reviewer])
      const before = assigned()
      expect(before).toContainEqual(['c7', 'ayse'])
      removeFromList(reviewContextOf(ayse), list.id, ['c7', 'c9'])
      expect(ayse.cache.review.reviewLists.callIds(list.id)).toEqual(['c8'])
      // The app's review sync says which removal was undone, for the Review screen to tell her.
      const queue = await appSyncReview(ayse.pool, SCHEMA, ayse.cache)
      expect(queue.refusedRemovals).toEqual([{ listId: list.id, calls: 2 }])
      expect(queue.error).toBeNull()
      expect(ayse.cache.review.share.waiting()).toBe(0)
      expect(ayse.cache.review.reviewLists.callIds(list.id)).toEqual(['c7', 'c8', 'c9'])
      expect(assigned()).toEqual(before)
      expect(await teamCalls(database, list.id)).toEqual(['c7', 'c8', 'c9'])

      // By hand (psql as the analyst) too: neither the tombstone nor the delete is hers to write.
      const c = await connectAs(cluster, database, 'ayse')
      try {
        await expect(
          c.query(`INSERT INTO acme.review_tombstones (kind, id, call_id, deleted_at) VALUES ('list-call', $1, 'c7', 1)`, [list.id])
        ).rejects.toMatchObject({ code: '42501' })
        await expect(c.query('DELETE FROM acme.team_review_list_items WHERE list_id = $1', [list.id])).rejects.toMatchObject({
          code: '42501'
        })
      } finally {
        await c.end()
      }
      await syncReview(lena)
      expect(lena.cache.review.reviewLists.callIds(list.id)).toEqual(['c7', 'c8', 'c9'])
    } finally {
      await lena.close()
      await ayse.close()
    }
  }, 90_000)

  it('says a refused removal even when a later batch of the same push fails', async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'lena', lead: true }, { name: 'ayse' }])
    const own = tempDir('callsight-review-removals-later-')
    const lena = workstation(cluster, database, own.dir, 'lena')
    const ayse = workstation(cluster, database, own.dir, 'ayse')
    try {
      const list = createList(reviewContextOf(lena), 'Week 50', { kind: 'ids', ids: ['d1', 'd2', 'd3'] })
      await syncReview(lena)
      await syncReview(ayse)
      removeFromList(reviewContextOf(ayse), list.id, ['d1'])
      // A change queued after it that the push cannot send (a kind this version does not
      // know, as from a newer app): its batch fails after the removal's batch was refused.
      connectionOf(ayse.cache)
        .prepare(
          "INSERT INTO review_outbox (change_id, kind, call_id, field, value, base, at) VALUES ('x-1', 'from-the-future', 'd2', 'f', '1', NULL, 1)"
        )
        .run()
      const queue = await appSyncReview(ayse.pool, SCHEMA, ayse.cache, { batchSize: 1 })
      expect(queue.error?.message).toContain('unknown kind')
      expect(queue.refusedRemovals).toEqual([{ listId: list.id, calls: 1 }])
      expect(ayse.cache.review.reviewLists.callIds(list.id)).toEqual(['d1', 'd2', 'd3'])
    } finally {
      await lena.close()
      await ayse.close()
      own.remove()
    }
  }, 90_000)
})
