import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { WritePageInput } from '../../../src/core/cache'
import { PgSyncStore } from '../../../src/core/team'
import type { CallRecord } from '../../../src/shared/domain'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase } from './helpers'

let cluster: PgCluster
// Process warnings of the whole file: node-postgres warns once per process (queueing a query
// on a busy client), so a later test alone would miss one an earlier test set off.
const warnings: string[] = []
const onWarning = (w: Error): void => void warnings.push(`${w.name}: ${w.message}`)

beforeAll(async () => {
  process.on('warning', onWarning)
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
}, 60_000)

afterAll(async () => {
  process.off('warning', onWarning)
  await cluster?.stop()
})

const ALL = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }
const TYPE = { callTypes: ['Fatura'], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: false }

function call(i: number, over: Partial<CallRecord> = {}): CallRecord {
  return {
    callId: `C${i}`,
    callAt: Date.parse('2026-01-05T12:00:00Z') + i * 1000,
    callDate: '2026-01-05T15:00:00+03:00',
    title: `Görüşme ${i}`,
    summary: `özet ${i}`,
    analysis: [
      { key: 'score', friendlyName: 'Skor', value: String(i % 100) },
      { key: 'csat', friendlyName: 'Memnuniyet', value: String(1 + (i % 5)) }
    ],
    extra: i % 2 ? { queue: 'Q1' } : {},
    ...over
  }
}

describe('a group of pages of two scopes written into PostgreSQL', () => {
  it('counts, stores and numbers the calls a second scope repeats in the same group exactly as page by page', async () => {
    const database = await freshDatabase(cluster)
    const url = cluster.urlFor({ database })
    const grouped = await PgSyncStore.open({ url, schema: 'grouped', migrate: true })
    const paged = await PgSyncStore.open({ url, schema: 'paged', migrate: true })
    try {
      for (const s of [grouped, paged]) {
        await s.ensureScope('all', ALL)
        await s.ensureScope('type', TYPE)
      }
      const all = Array.from({ length: 600 }, (_, i) => call(i))
      // The second scope repeats calls of the first: most identical, some with a changed
      // title (they must be rewritten), some with other extra fields, some not in the first.
      const repeated = [
        ...all.slice(0, 300).map((r) => ({ ...r, analysis: [] })),
        { ...all[300]!, title: 'değişti', analysis: [] },
        { ...all[301]!, extra: { queue: 'Q9' }, analysis: [] },
        { ...all[302]!, extra: { ...all[302]!.extra }, analysis: [] },
        call(900),
        call(901)
      ]
      // And a later page of the first scope repeats a call with other items, one unchanged.
      const again = [{ ...all[5]!, analysis: [{ key: 'score', friendlyName: 'Skor', value: '99' }] }, all[6]!]
      const group: WritePageInput[] = [
        { scopeKey: 'all', records: all.slice(0, 300), includeAnalysis: true, checkpoint: { next: 300 } },
        { scopeKey: 'all', records: all.slice(300), includeAnalysis: true, checkpoint: { next: 600 } },
        { scopeKey: 'type', records: repeated, includeAnalysis: false, checkpoint: { next: 1 } },
        { scopeKey: 'all', records: again, includeAnalysis: true, checkpoint: { next: 602 } }
      ]
      const counts = await grouped.writePages(group)
      const byPage = []
      for (const page of group) byPage.push(...(await paged.writePages([page])))
      expect(counts).toEqual(byPage)
      expect(counts[2]).toEqual({ inserted: 2, updated: 2, unchanged: 301 })
      expect(counts[3]).toEqual({ inserted: 0, updated: 1, unchanged: 1 })

      const rows = async (schema: string): Promise<unknown[]> =>
        (
          await grouped.pool.query(
            `SELECT call_id, call_at, call_date, title, summary, extra, analysis FROM ${schema}.calls ORDER BY call_id`
          )
        ).rows
      expect(await rows('grouped')).toEqual(await rows('paged'))
      const members = async (schema: string): Promise<unknown[]> =>
        (
          await grouped.pool.query(
            `SELECT s.scope_key, m.call_id FROM ${schema}.scope_members m JOIN ${schema}.scopes s ON s.id = m.scope_id ORDER BY 1, 2`
          )
        ).rows
      expect(await members('grouped')).toEqual(await members('paged'))
      // A call written once in the group keeps the one change number it got: its identical
      // repetition was not written again (and would not have been renumbered by PostgreSQL).
      const seq = async (id: string): Promise<number> =>
        Number((await grouped.pool.query<{ seq: string }>('SELECT seq FROM grouped.calls WHERE call_id = $1', [id])).rows[0]!.seq)
      const first = await seq('C0')
      expect(await seq('C300')).toBeGreaterThan(await seq('C599'))
      expect(await seq('C5')).toBeGreaterThan(await seq('C900'))
      expect(await seq('C6')).toBeLessThan(await seq('C300'))
      expect(first).toBeLessThan(await seq('C1'))
    } finally {
      await grouped.close()
      await paged.close()
    }
  })

  it('a group whose statement fails writes nothing, and the process survives the statements queued behind it', async () => {
    const database = await freshDatabase(cluster)
    const url = cluster.urlFor({ database })
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await store.ensureScope('all', ALL)
      // PostgreSQL's text cannot hold U+0000: the first statement of the group fails while
      // later ones are queued behind it.
      const records = Array.from({ length: 900 }, (_, i) => call(i, i === 10 ? { title: 'kırık \u0000 başlık' } : {}))
      await expect(store.writePages([{ scopeKey: 'all', records, includeAnalysis: true, checkpoint: { next: 900 } }])).rejects.toThrow()
      await expect(store.writePages([{ scopeKey: 'nope', records: [call(1)], includeAnalysis: true, checkpoint: null }])).rejects.toThrow(
        /not known/
      )
      const n = await store.pool.query<{ calls: string; members: string }>(
        'SELECT (SELECT count(*) FROM acme.calls) AS calls, (SELECT count(*) FROM acme.scope_members) AS members'
      )
      expect(n.rows[0]).toEqual({ calls: '0', members: '0' })
      expect(await store.getCheckpoint('all')).toBeNull()
      // The store is still usable.
      await store.writePages([{ scopeKey: 'all', records: [call(1)], includeAnalysis: true, checkpoint: { next: 1 } }])
      expect(await store.getCheckpoint('all')).toEqual({ next: 1 })
    } finally {
      await store.close()
    }
  })

  it('sends groups in pipeline mode without node-postgres warnings (in this whole file), storing what statements awaited one by one store', async () => {
    const database = await freshDatabase(cluster)
    const url = cluster.urlFor({ database })
    const piped = await PgSyncStore.open({ url, schema: 'piped', migrate: true })
    const awaited = await PgSyncStore.open({ url, schema: 'awaited', migrate: true, pipeline: false })
    try {
      for (const s of [piped, awaited]) {
        await s.ensureScope('all', ALL)
        await s.ensureScope('type', TYPE)
      }
      // Several upsert statements (more than one chunk of 250), both scopes, a checkpoint each.
      const all = Array.from({ length: 1200 }, (_, i) => call(i))
      const group = (): WritePageInput[] => [
        { scopeKey: 'all', records: all.slice(0, 600), includeAnalysis: true, checkpoint: { next: 600 } },
        { scopeKey: 'all', records: all.slice(600), includeAnalysis: true, checkpoint: { next: 1200 } },
        {
          scopeKey: 'type',
          records: all.slice(0, 700).map((r) => ({ ...r, analysis: [] })),
          includeAnalysis: false,
          checkpoint: { next: 7 }
        }
      ]
      const counts = [await piped.writePages(group()), await awaited.writePages(group())]
      expect(counts[0]).toEqual(counts[1])
      expect(counts[0]!.map((c) => c.inserted)).toEqual([600, 600, 0])
      const rows = async (schema: string): Promise<unknown[]> =>
        (
          await piped.pool.query(
            `SELECT c.call_id, c.title, c.analysis, c.seq - (SELECT min(seq) FROM ${schema}.calls) AS rel,
                    (SELECT array_agg(scope_id ORDER BY scope_id) FROM ${schema}.scope_members m WHERE m.call_id = c.call_id) AS scopes
             FROM ${schema}.calls c ORDER BY c.call_id`
          )
        ).rows
      expect(await rows('piped')).toEqual(await rows('awaited'))
      expect(await piped.getCheckpoint('type')).toEqual({ next: 7 })
      await new Promise((r) => setImmediate(r))
      expect(warnings.filter((w) => /pg|client\.query/i.test(w))).toEqual([])
    } finally {
      await piped.close()
      await awaited.close()
    }
  })
})
