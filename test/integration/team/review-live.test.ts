import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, tempDir } from './helpers'
import { connectedWorkstation, setUpTenant, type ConnectedWorkstation } from './review-support'

let cluster: PgCluster
const tmp = tempDir('callsight-review-live-')

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)
afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

const connected = (database: string, name: string): ConnectedWorkstation => connectedWorkstation(cluster, database, tmp.dir, name)

const backendsOf = async (user: string): Promise<number> =>
  (await cluster.sql(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE usename = $1 AND query ILIKE 'LISTEN%'`, [user])).rows[0]
    .n as number

describe('review changes delivered live (LISTEN/NOTIFY)', () => {
  it('a save on one connected workstation reaches another without a pull by hand, also after the listening connection was cut', async () => {
    const database = await freshDatabase(cluster)
    await setUpTenant(cluster, database, [{ name: 'ayse' }, { name: 'mehmet' }])
    const a = connected(database, 'ayse')
    const b = connected(database, 'mehmet')
    try {
      a.live.start()
      b.live.start()
      // Both listening (each ran its catch-up sync on connecting).
      await a.until(() => a.live.listening && a.live.syncs > 0)
      await b.until(() => b.live.listening && b.live.syncs > 0)

      a.ws.save('c1', { status: 'reviewed', tags: ['billing'] })
      a.live.saved()
      await b.until(() => b.ws.cache.review.annotations.get('c1')?.status === 'reviewed')
      expect(b.ws.cache.review.annotations.get('c1')).toMatchObject({ status: 'reviewed', tags: ['billing'], updatedBy: 'ayse' })
      expect(a.ws.cache.review.share.waiting()).toBe(0)

      // The server ends mehmet's listening session: the app listens again (back-off) and catches up.
      await cluster.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'mehmet' AND query ILIKE 'LISTEN%'`)
      a.ws.save('c2', { status: 'follow_up' })
      a.live.saved()
      await b.until(() => b.ws.cache.review.annotations.get('c2')?.status === 'follow_up')
      await b.until(() => b.live.listening)
      expect(await backendsOf('mehmet')).toBe(1)

      // A burst of saves: every one arrives, the syncs coalesced.
      const before = b.live.syncs
      for (let i = 0; i < 30; i++) {
        a.ws.save(`burst-${i}`, { status: 'reviewed' })
        a.live.saved()
      }
      await b.until(() => b.ws.cache.review.annotations.get('burst-29')?.status === 'reviewed')
      for (let i = 0; i < 30; i++) expect(b.ws.cache.review.annotations.get(`burst-${i}`)?.status).toBe('reviewed')
      expect(b.live.syncs - before).toBeLessThan(30)
    } finally {
      await a.close()
      await b.close()
    }
  }, 60_000)
})
