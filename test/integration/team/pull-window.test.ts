import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildCli, removeBuild } from '../cli/build-cli'
import { runCli } from '../cli/helpers'
import { connectionOf } from '../../../src/core/cache/call-cache'
import { createSearch } from '../../../src/core/search'
import { createPool, DAY_MS, enableTeamSearch, PgSyncStore, searchTeamCache, type PullProgress } from '../../../src/core/team'
import type { TeamWindow } from '../../../src/shared/team'
import { exactOf, SearchQuery, type SearchQueryInput } from '../../../src/shared/domain'
import {
  engineFor,
  expectHolds,
  freshDatabase,
  pgContent,
  pullInto,
  signedInSession,
  useClusterAndService,
  withCache,
  within
} from './helpers'

// A year of calls, few of them: the worker syncs it whole, workstations hold windows of it.
const YEAR_FROM = '2025-01-05T00:00:00Z'
const YEAR_TO = '2026-01-05T00:00:00Z'
const team = useClusterAndService({ calls: 1500, from: YEAR_FROM, to: YEAR_TO }, 'callsight-window-')

const NOW = Date.parse(YEAR_TO) + 3_600_000

let cli = ''
beforeAll(async () => {
  cli = await buildCli()
}, 120_000)
afterAll(() => removeBuild(cli))
const YEAR = { from: Date.parse(YEAR_FROM) - DAY_MS, to: NOW, results: 'all' as const, includeAnalysis: true }

const pull = (
  url: string,
  file: string,
  now: number,
  window?: TeamWindow,
  onProgress?: (p: PullProgress, stop: () => void) => void
): Promise<PullProgress> => pullInto(url, file, { now, window, onProgress })

const query = (over: SearchQueryInput): SearchQuery => SearchQuery.parse({ results: 'all', ...over })

/** A query's count and its first 50 call ids, in order. */
function answer(file: string, q: SearchQuery): { total: number; ids: string[] } {
  return withCache(file, (cache) => {
    const search = createSearch(cache)
    return { total: search.count(q), ids: search.page(q, 0, 50).rows.map((r) => r.callId) }
  })
}

describe('a window per workstation', () => {
  it('holds the last N days, drops what leaves, keeps annotations, widens by a resumable backfill', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    try {
      await enableTeamSearch(store.pool, 'acme')
      await engineFor(session, store).run(YEAR, { mode: 'full' })
    } finally {
      await store.close()
    }
    const full = await pgContent(url, 'acme')
    expect(full.calls.size).toBeGreaterThan(1400)

    // Everything, for the answers to compare with; and a 90-day window.
    const everything = join(team.dir, 'all.sqlite')
    expect((await pull(url, everything, NOW)).phase).toBe('done')
    expectHolds(everything, full)
    const file = join(team.dir, 'window.sqlite')
    const first = await pull(url, file, NOW, { days: 90 })
    expect(first.phase, JSON.stringify(first.error)).toBe('done')
    const start90 = NOW - 90 * DAY_MS
    const in90 = within(full, start90)
    expect(in90.calls.size).toBeGreaterThan(200)
    expect(in90.calls.size).toBeLessThan(full.calls.size - 500)
    expectHolds(file, in90)

    // Inside the window the answers are the full set's; the count of everything is the window's.
    for (const q of [
      query({ from: NOW - 30 * DAY_MS, to: NOW }),
      query({ from: start90, to: NOW, text: 'fatura' }),
      query({ from: NOW - 60 * DAY_MS, to: NOW - 10 * DAY_MS, text: 'iade OR fatura', sort: 'date_asc' })
    ]) {
      const want = answer(everything, q)
      expect(want.total).toBeGreaterThan(50)
      expect(answer(file, q)).toEqual(want)
    }
    expect(answer(file, query({})).total).toBe(in90.calls.size)
    expect(answer(file, query({ text: 'fatura' }))).toEqual(answer(everything, query({ from: start90, text: 'fatura' })))

    // Coverage: exact inside the window, the window's notice for a range reaching before it.
    withCache(file, (cache) => {
      const search = createSearch(cache)
      const inside = search.coverage(query({ from: NOW - 30 * DAY_MS, to: NOW - DAY_MS }))
      expect(inside.complete).toBe(true)
      expect(inside.notices).toBeUndefined()
      const before = search.coverage(query({ from: NOW - 200 * DAY_MS, to: NOW - DAY_MS }))
      expect(before.complete).toBe(false)
      expect(before.notices).toEqual([{ kind: 'outside-window', windowStart: start90, days: 90 }])
      expect(before.missing[0]).toMatchObject({ from: NOW - 200 * DAY_MS, to: start90 })
    })

    // Outside the window the team cache answers in place: the same ids, order and totals as
    // a workstation holding everything.
    const teamPool = createPool({ url, schema: 'acme', maxConnections: 2 })
    try {
      for (const q of [
        query({ from: NOW - 300 * DAY_MS, to: start90 }),
        query({ from: NOW - 200 * DAY_MS, to: NOW - DAY_MS, text: 'fatura' }),
        query({ from: NOW - 365 * DAY_MS, to: NOW - 120 * DAY_MS, text: 'iade OR fatura', sort: 'date_asc' })
      ]) {
        const want = answer(everything, q)
        expect(want.total).toBeGreaterThan(50)
        const got = await searchTeamCache({ pool: teamPool, schema: 'acme' }, q, { offset: 0, limit: 50, count: 'exact' })
        expect({ total: exactOf(got.total), ids: got.page.rows.map((r) => r.callId) }).toEqual(want)
        expect(got.unindexed).toBe(false)
        expect(answer(file, q).total).toBeLessThan(want.total)
      }
    } finally {
      await teamPool.end()
    }
    // The CLI's offline search says it on stderr; its answer is still printed.
    const cliSearch = await runCli(cli, [
      'search',
      '--db',
      file,
      '--zone',
      'UTC',
      '--results',
      'all',
      '--from',
      new Date(NOW - 200 * DAY_MS).toISOString()
    ])
    expect(cliSearch.code).toBe(0)
    expect(cliSearch.stderr).toContain("Outside this workstation's window: last 90 days")
    expect(cliSearch.stderr).toContain(`--db ${file} --days N`)
    expect(cliSearch.stderr).not.toContain('not synced')
    const both = await runCli(cli, ['pull', '--from', url, '--db', file, '--schema', 'acme', '--days', '9', '--all'])
    expect(both.code).not.toBe(0)
    expect(both.stderr).toContain('--days and --all')
    // The full cache says nothing of the kind for the same range.
    withCache(everything, (cache) => {
      const c = createSearch(cache).coverage(query({ from: NOW - 200 * DAY_MS, to: NOW - DAY_MS }))
      expect(c.complete).toBe(true)
      expect(c.notices).toBeUndefined()
    })

    // An annotation on a call about to leave the window.
    const leaving = [...in90.calls].filter(([, c]) => c.callAt < start90 + 15 * DAY_MS).map(([id]) => id)
    expect(leaving.length).toBeGreaterThan(0)
    const annotated = leaving[0]!
    withCache(file, (cache) =>
      cache.review.annotations.write(annotated, { status: 'reviewed', note: 'keep me' }, { author: 'ayse', at: NOW, history: true })
    )

    // Twenty days later the cutoff has moved: the calls that left are dropped, the annotation stays.
    const later = NOW + 20 * DAY_MS
    const moved = await pull(url, file, later)
    expect(moved.phase).toBe('done')
    const startLater = later - 90 * DAY_MS
    expect(moved.dropped).toBe(in90.calls.size - within(full, startLater).calls.size)
    expectHolds(file, within(full, startLater))
    withCache(file, (cache) => {
      expect(cache.getCall(annotated)).toBeNull()
      expect(cache.review.annotations.get(annotated)).toMatchObject({ status: 'reviewed', note: 'keep me' })
      expect(createSearch(cache).count(query({}))).toBe(within(full, startLater).calls.size)
    })
    // The dropped calls' index rows went with them: a word's answer is the full set's from the new start.
    expect(answer(file, query({ text: 'fatura' }))).toEqual(answer(everything, query({ from: startLater, text: 'fatura' })))
    expect(answer(file, query({ text: 'fatura', sort: 'date_asc' }))).toEqual(
      answer(everything, query({ from: startLater, text: 'fatura', sort: 'date_asc' }))
    )

    // Widened to 180 days: the backfill is stopped after its first batches, then resumed.
    const start180 = later - 180 * DAY_MS
    const missing = within(full, start180).calls.size - within(full, startLater).calls.size
    expect(missing).toBeGreaterThan(250)
    const stopped = await pull(url, file, later, { days: 180 }, (p, stop) => {
      if (p.backfilled >= 200) stop()
    })
    expect(stopped.phase).toBe('cancelled')
    expect(stopped.backfilled).toBeGreaterThan(0)
    expect(stopped.backfilled).toBeLessThan(missing)
    // The window chosen is kept in the file: the next pull continues the backfill without being told.
    const resumed = await pull(url, file, later)
    expect(resumed.phase, JSON.stringify(resumed.error)).toBe('done')
    expect(stopped.backfilled + resumed.backfilled).toBe(missing)
    expectHolds(file, within(full, start180))
    withCache(file, (cache) => {
      expect(cache.getCall(annotated)).not.toBeNull()
      expect(connectionOf(cache).prepare('SELECT call_row IS NOT NULL FROM annotations WHERE call_id = ?').pluck().get(annotated)).toBe(1)
    })
    const q = query({ from: start180, to: later, text: 'fatura' })
    expect(answer(file, q)).toEqual(answer(everything, q))

    // Everything again: the rest comes back.
    expect((await pull(url, file, later, { days: null })).phase).toBe('done')
    expectHolds(file, full)
  }, 300_000)
})
