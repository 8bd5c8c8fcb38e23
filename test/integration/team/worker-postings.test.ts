/**
 * The worker builds the count postings of the chunks its cycle wrote (team cache search on),
 * so that the exact count reads no rows for them. Real PostgreSQL, the reference service.
 */
import { describe, expect, it } from 'vitest'
import { enableTeamSearch, PgSyncStore } from '../../../src/core/team'
import { freshDatabase, FROM, membershipWorkerConfig, signedInSession, useClusterAndService, workerOf } from './helpers'

const team = useClusterAndService({ calls: 2000, seed: 43 }, 'callsight-team-worker-postings-')

describe('the worker and the count postings', () => {
  it('leaves no chunk dirty after a cycle, every call in the postings', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const session = (await signedInSession(team.service)).session
    const cfg = membershipWorkerConfig(team, database, {
      scopes: [{ name: 'all calls', from: FROM.replace('Z', '+00:00'), analysis: true, results: 'all' }],
      memberships: false
    })
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await enableTeamSearch(store.pool, 'acme')
      const r = await workerOf(cfg, store, session).run(new AbortController().signal, { once: true })
      expect(r.failures).toBe(0)
      const calls = await store.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM acme.calls')
      expect(calls.rows[0]!.n).toBeGreaterThan(0)
      const dirty = await store.pool.query('SELECT chunk FROM acme.count_dirty')
      expect(dirty.rows).toEqual([])
      // The calls present, as the postings hold them (each chunk's 'all' term, uint16 list or bitmap).
      const all = await store.pool.query<{ posts: Buffer }>(`SELECT posts FROM acme.count_posts WHERE term = 'all'`)
      let n = 0
      for (const { posts } of all.rows) {
        if (posts.length === 8192) for (const b of posts) for (let k = 0; k < 8; k++) n += (b >> k) & 1
        else n += posts.length / 2
      }
      expect(n).toBe(calls.rows[0]!.n)
    } finally {
      await store.close()
    }
  }, 300_000)
})
