import { join } from 'node:path'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { openCache } from '../../../src/core/cache'
import { createPool, PgSyncStore, pullTeamCache } from '../../../src/core/team'
import { engineFor, freshDatabase, FROM_MS, pgContent, signedInSession, sqliteContent, TO_MS, useClusterAndService } from './helpers'
import { connectionOf } from '../../../src/core/cache/call-cache'

/**
 * Rows placed in the team cache by other hands than the worker's (whoever administers the
 * database): a pull must neither fetch an oversized value in full nor store personal data
 * the worker would have masked.
 */
const team = useClusterAndService({ calls: 400 }, 'callsight-pull-hostile-')

const ALL = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: true }
const BIG = 50 * 1024 * 1024

async function asOwner(url: string, sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    await c.query(sql)
  } finally {
    await c.end()
  }
}

/** A call row written straight into the team cache, with a membership of the first scope. */
function insertCall(id: string, title: string, summary: string, analysis: string, extra: string): string {
  return `
    INSERT INTO acme.calls (call_id, call_at, call_date, title, summary, extra, analysis, first_seen_at, last_changed_at, seq)
      VALUES ('${id}', ${FROM_MS + 1000}, '2026-01-05 09:00:01', ${title}, ${summary}, ${extra}, ${analysis}, 0, 0, nextval('acme.changes'));
    INSERT INTO acme.scope_members (scope_id, call_id, seq) VALUES ((SELECT min(id) FROM acme.scopes), '${id}', nextval('acme.changes'));`
}

describe('a pull from a team cache holding rows the worker did not write', () => {
  it('refuses a 50 MB summary without fetching it, names the call, and pulls everything else exactly', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await engineFor(session, store).run(ALL, { mode: 'full' })
    } finally {
      await store.close()
    }
    await asOwner(url, insertCall('hostile-1', `'big'`, `repeat('x', ${BIG})`, 'NULL', `'{}'`))
    // A row after it: the cursor goes on past the refused one.
    await asOwner(url, insertCall('after-1', `'after'`, `'fine'`, 'NULL', `'{}'`))

    const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
    const clients: pg.Client[] = []
    pool.on('connect', (c) => clients.push(c as unknown as pg.Client))
    const file = join(team.dir, 'big.sqlite')
    const cache = openCache(file)
    try {
      const p = await pullTeamCache({ pool, schema: 'acme', sourceLabel: url, cache, batchSize: 150 })
      expect(p.phase, JSON.stringify(p.error)).toBe('done')
      expect(p.refused).toBe(1)
      expect(p.refusals[0]!.message).toMatch(/hostile-1/)
      expect(p.refusals[0]!.message).toMatch(/summary is 52428800 bytes/)
      // What crossed the wire: far below the row's size (it was never sent).
      const read = clients.reduce(
        (n, c) => n + (c as unknown as { connection: { stream: { bytesRead: number } } }).connection.stream.bytesRead,
        0
      )
      expect(read).toBeLessThan(BIG / 5)
      expect(cache.getCall('hostile-1')).toBeNull()
      expect(cache.getCall('after-1')?.summary).toBe('fine')
      const want = await pgContent(url, 'acme')
      want.calls.delete('hostile-1')
      for (const m of [...want.members]) if (m.endsWith('|hostile-1')) want.members.delete(m)
      const got = sqliteContent(cache)
      expect(got.calls).toEqual(want.calls)
      expect(got.members).toEqual(want.members)
      expect(got.scopes).toEqual(want.scopes)
    } finally {
      cache.close()
      await pool.end()
    }
  }, 120_000)

  it('masks a phone number, an e-mail address and a TCKN placed in a row', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await engineFor(session, store).run(ALL, { mode: 'full' })
    } finally {
      await store.close()
    }
    await asOwner(
      url,
      insertCall(
        'pii-1',
        `'Callback 0532 123 45 67'`,
        `'Write to ali.veli@example.com, TCKN 10000000146.'`,
        `'[["phone","Phone","+90 532 123 45 67"]]'`,
        `'{"contact":"ali.veli@example.com","nationalId":"10000000146"}'`
      )
    )
    const pool = createPool({ url, schema: 'acme', maxConnections: 2 })
    const cache = openCache(join(team.dir, 'pii.sqlite'))
    try {
      const p = await pullTeamCache({ pool, schema: 'acme', sourceLabel: url, cache })
      expect(p.phase, JSON.stringify(p.error)).toBe('done')
      const got = cache.getCall('pii-1')!
      const stored = JSON.stringify(connectionOf(cache).prepare("SELECT * FROM calls WHERE call_id = 'pii-1'").get())
      for (const text of [JSON.stringify(got), stored]) {
        expect(text).not.toMatch(/532 123 45 67|ali\.veli@example\.com|10000000146/)
      }
      expect(got.title).toBe('Callback [MASKED]')
      expect(got.analysis[0]!.value).toBe('[MASKED]')
      expect(got.extra).toEqual({ contact: '[MASKED]', nationalId: '[MASKED]' })
      // Nor does the full-text index find it.
      const hits = connectionOf(cache).prepare('SELECT count(*) AS n FROM calls_fts WHERE calls_fts MATCH \'"10000000146"\'').get() as {
        n: number
      }
      expect(hits.n).toBe(0)
    } finally {
      cache.close()
      await pool.end()
    }
  }, 120_000)
})
