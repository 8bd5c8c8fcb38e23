import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openCache } from '../../../src/core/cache'
import { createPool, PgSyncStore, pullTeamCache } from '../../../src/core/team'
import { engineFor, freshDatabase, FROM_MS, pgContent, signedInSession, TO_MS, useClusterAndService } from './helpers'

/** Change numbers are spent on changes only, and a pull's count says how many calls it brought. */
const team = useClusterAndService({ calls: 2000 }, 'callsight-change-numbers-')

const ALL = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: true }
const ANSWERED = { from: FROM_MS, to: TO_MS, includeAnalysis: false, direction: 2 }

async function sequenceValue(url: string): Promise<number> {
  const pool = createPool({ url, schema: 'acme', maxConnections: 1 })
  try {
    return Number((await pool.query<{ v: string }>('SELECT last_value AS v FROM acme.changes')).rows[0]!.v)
  } finally {
    await pool.end()
  }
}

describe('change numbers', () => {
  it('a cycle over unchanged data moves the sequence by a handful; a changed call takes one', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await engineFor(session, store).run(ALL, { mode: 'full' })
      await engineFor(session, store).run(ANSWERED, { mode: 'full' })
      await store.upsertCallTypes(await store.callTypes())
      const before = await sequenceValue(url)
      // The same windows fetched again: every call, membership and call type is as stored.
      await engineFor(session, store).run(ALL, { mode: 'full' })
      await engineFor(session, store).run(ANSWERED, { mode: 'full' })
      await store.upsertCallTypes(await store.callTypes())
      const unchanged = (await sequenceValue(url)) - before
      expect(unchanged).toBeLessThanOrEqual(6)

      team.service.admin.updateCalls(5)
      const mid = await sequenceValue(url)
      await engineFor(session, store).run(ALL, { mode: 'full' })
      expect((await sequenceValue(url)) - mid).toBeLessThanOrEqual(5 + 6)
    } finally {
      await store.close()
    }
  }, 120_000)

  it('a pull counts each call it brings once, also one that travels ahead with a membership', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await engineFor(session, store).run(ALL, { mode: 'full' })
      // Changed calls are numbered after their memberships: a pull in small batches sends them
      // ahead with those, and again in their own batch.
      team.service.admin.updateCalls(40)
      await engineFor(session, store).run(ALL, { mode: 'full' })
    } finally {
      await store.close()
    }
    const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
    const cache = openCache(join(team.dir, 'count.sqlite'))
    try {
      const p = await pullTeamCache({ pool, schema: 'acme', sourceLabel: url, cache, batchSize: 100 })
      expect(p.phase).toBe('done')
      const want = await pgContent(url, 'acme')
      expect(p.calls).toBe(want.calls.size)
      expect(cache.info().calls).toBe(want.calls.size)
    } finally {
      cache.close()
      await pool.end()
    }
  }, 120_000)
})
