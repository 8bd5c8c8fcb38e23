import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createReviewReads, createSearchReader, openCache } from '../../../../src/core/cache'
import { SQL_REVIEWS } from '../../../../bench/baselines/search-strategies'
import { DataWatch } from '../../../../src/core/search/data-watch'
import { ReviewSet } from '../../../../src/core/search/review/review-set'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord, type ReviewFilterInput, type SearchQueryInput } from '../../../../src/shared/domain'
import type { Annotation, ReviewStatus } from '../../../../src/shared/review'
import { foldText } from '../../../../src/shared/text/fold'
import { buildFixture, rnd, T0, type Fixture } from './fixture'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import { rankOf } from '../../../../src/core/search/memory/date-rank'

// Review filters against a brute-force answer, through every path: the annotations held in
// memory (the default: review-set.ts with the bitmap evaluator), and the SQL plans (the
// candidates listed and sorted when few, the review index walked, the date-index scan;
// longJump and a big fixture are not needed, the estimate cap decides).

let fx: Fixture
/** The default: review filters from the annotations in memory. */
let search: LocalSearch
/** SQL only for review filters (the plans before the review set, the bench's baseline). */
let sqlOnly: LocalSearch
/** SQL with REVIEW_FEW at 10: a selective filter walks its driver instead of sorting its candidates. */
let walking: LocalSearch
/** In memory, reading the match list after 30 candidates the rest of the query fails. */
let impatient: LocalSearch
/** In memory, a listed word's matches that pass always put in date order in memory (never read all by id). */
let sorting: LocalSearch
const paths = (): Array<[string, LocalSearch]> => [
  ['memory', search],
  ['memory, match list soon', impatient],
  ['memory, listed matches sorted in memory', sorting],
  ['sql', sqlOnly],
  ['sql walking', walking]
]
const STATUSES: ReviewStatus[] = ['new', 'in_review', 'reviewed', 'follow_up']
const TAGS = ['iade', 'şikayet', 'kvkk', 'İPTAL']
const NOTES = ['Müşteri İSTANBUL şubesini aradı', 'ışık arızası', 'iade talebi', '']

beforeAll(() => {
  fx = buildFixture(3000, 5)
  search = createSearch(fx.cache)
  sqlOnly = createSearch(fx.cache, {}, SQL_REVIEWS)
  impatient = createSearch(fx.cache, { reviewProbeMax: 30 })
  sorting = createSearch(fx.cache, { reviewListedSortMax: 0 })
  walking = createSearch(fx.cache, { reviewFew: 10 }, SQL_REVIEWS)
  const r = rnd(9)
  const card = fx.cache.review.scorecards.save(
    { name: 'F', criteria: [{ id: 'q', name: 'Q', weight: 1, scale: '0_10', critical: false }] },
    'card',
    'x',
    1
  )
  // 60% of the calls annotated: common statuses go through the scan, rare tags through candidates.
  fx.records.forEach((rec, i) => {
    if (r() > 0.6) return
    const answer = Math.floor(r() * 11)
    fx.cache.review.annotations.write(
      rec.callId,
      {
        status: STATUSES[Math.floor(r() * 4)]!,
        tags: r() < 0.02 ? ['kvkk'] : TAGS.filter(() => r() < 0.3),
        note: NOTES[i % 4]!,
        ...(r() < 0.5 ? { score: { scorecardId: card.id, version: 1, answers: { q: answer }, total: answer * 10, failed: false } } : {})
      },
      { author: r() < 0.5 ? 'ayse' : 'mehmet', at: 10, history: false }
    )
  })
  // Some annotated calls the service no longer returns (a sync marks them so; set here directly).
  const drop = connectionOf(fx.cache).prepare('UPDATE annotations SET service_dropped_at = 7 WHERE call_id = ?')
  fx.records.forEach((rec, i) => {
    if (i % 7 === 0) drop.run(rec.callId)
  })
  // An annotation whose call the cache does not hold: never a search result.
  fx.cache.review.annotations.write('gone', { status: 'reviewed', tags: ['kvkk'] }, { author: 'ayse', at: 10, history: false })
})
afterAll(() => fx.close())

function brute(f: ReviewFilterInput, text?: (rec: CallRecord) => boolean, list?: Set<string>): string[] {
  const all = fx.cache.review.annotations.getMany(fx.records.map((r) => r.callId))
  const ok = (rec: CallRecord, a: Annotation | undefined): boolean => {
    const status = a?.status ?? 'new'
    if (f.statuses?.length && !f.statuses.includes(status)) return false
    if (f.tags?.some((t) => !a?.tags.includes(t))) return false
    if (f.hasNote === true && !(a && a.note !== '')) return false
    if (f.hasNote === false && a && a.note !== '') return false
    const total = a?.score?.total ?? null
    if (f.scoreMin != null && !(total !== null && total >= f.scoreMin)) return false
    if (f.scoreMax != null && !(total !== null && total <= f.scoreMax)) return false
    if (f.scorecardId != null && a?.score?.scorecardId !== f.scorecardId) return false
    if (f.reviewer != null && a?.updatedBy !== f.reviewer) return false
    if (f.noteText) {
      const words = foldText(f.noteText).split(/\s+/).filter(Boolean)
      if (!a || !words.every((w) => foldText(a.note).includes(w))) return false
    }
    if (f.serviceDropped === true && !a?.serviceDroppedAt) return false
    if (f.serviceDropped === false && a?.serviceDroppedAt) return false
    if (list && !list.has(rec.callId)) return false
    return text ? text(rec) : true
  }
  return fx.records
    .filter((rec) => ok(rec, all.get(rec.callId)))
    .sort((a, b) => b.callAt - a.callAt || (b.callId < a.callId ? -1 : b.callId > a.callId ? 1 : 0))
    .map((r) => r.callId)
}

function all(query: SearchQueryInput, s: LocalSearch = search): string[] {
  const out: string[] = []
  for (let offset = 0; ; offset += 500) {
    const rows = s.page({ results: 'all', ...query } as never, offset, 500).rows
    out.push(...rows.map((r) => r.callId))
    if (rows.length < 500) return out
  }
}

describe('review filters in local search', () => {
  const cases: Array<[string, ReviewFilterInput]> = [
    ['status reviewed', { statuses: ['reviewed'] }],
    ['status new (never annotated too)', { statuses: ['new'] }],
    ['status new or follow-up', { statuses: ['new', 'follow_up'] }],
    ['a tag', { tags: ['kvkk'] }],
    ['a rare score', { scoreMin: 100 }],
    ['two tags', { tags: ['iade', 'şikayet'] }],
    ['has a note', { hasNote: true }],
    ['has no note', { hasNote: false }],
    ['score range', { scoreMin: 30, scoreMax: 60 }],
    ['scorecard and reviewer', { scorecardId: 'card', reviewer: 'mehmet' }],
    ['note text, Turkish folding', { noteText: 'istanbul' }],
    ['note text, dotless i', { noteText: 'ISIK' }],
    ['dropped by the service', { serviceDropped: true }],
    ['not dropped by the service', { serviceDropped: false }],
    ['dropped by the service, with a status', { serviceDropped: true, statuses: ['reviewed'] }],
    ['everything at once', { statuses: ['reviewed', 'in_review'], tags: ['iade'], scoreMin: 10, reviewer: 'ayse' }]
  ]
  for (const [name, f] of cases) {
    it(`pages and counts ${name} like a brute-force filter`, () => {
      const expected = brute(f)
      expect(expected.length).toBeGreaterThan(0)
      expect(expected.length).toBeLessThan(fx.records.length)
      for (const [path, s] of paths()) {
        expect(all({ review: f }, s), path).toEqual(expected)
        expect(s.count({ results: 'all', review: f } as never), path).toBe(expected.length)
        // Cold: a first page and a second one, without the count or the whole list read first.
        s.resetCaches()
        const second = s.page({ results: 'all', review: f } as never, 20, 10).rows.map((r) => r.callId)
        expect(second, path).toEqual(expected.slice(20, 30))
        s.resetCaches()
        expect(
          s.page({ results: 'all', review: f } as never, 0, 15).rows.map((r) => r.callId),
          path
        ).toEqual(expected.slice(0, 15))
      }
    })
  }

  it('walks a review index in date order when one holds every match; a list through its candidates; new by the scan', () => {
    // A selective filter (a condition beyond the driver's index): its few candidates read by
    // id and sorted; many of them: the walk, each row's annotation tested before its call is read.
    expect(sqlOnly.explain({ review: { scoreMin: 100 } } as never, 100).plan).toBe('fts')
    expect(walking.explain({ review: { scoreMin: 100 } } as never, 100).plan).toBe('review')
    expect(walking.explain({ review: { statuses: ['reviewed'], reviewer: 'ayse' } } as never, 100).plan).toBe('review')
    expect(sqlOnly.explain({ review: { statuses: ['reviewed'] } } as never, 100).plan).toBe('review')
    expect(sqlOnly.explain({ review: { tags: ['kvkk'] } } as never, 100).plan).toBe('review')
    expect(sqlOnly.explain({ review: { statuses: ['reviewed', 'in_review', 'follow_up'] } } as never, 100).plan).toBe('review')
    expect(sqlOnly.explain({ review: { statuses: ['new'] } } as never, 100).plan).toBe('scan')
    expect(sqlOnly.explain({ review: { hasNote: false } } as never, 100).plan).toBe('scan')
    // In memory whatever the shape, with text too; relevance order stays with FTS5's ranking.
    for (const review of [{ scoreMin: 100 }, { statuses: ['new'] }, { tags: ['kvkk'] }] as ReviewFilterInput[]) {
      expect(search.explain({ review } as never, 100).plan).toBe('review-set')
      expect(search.explain({ text: 'iade', review } as never, 100).plan).toBe('review-set')
    }
    expect(search.explain({ text: 'iade', sort: 'relevance', review: { tags: ['kvkk'] } } as never, 100).plan).toBe('relevance')
  })

  it('pages the review walk oldest first, within a date range, and with common text', () => {
    const f: ReviewFilterInput = { statuses: ['reviewed'] }
    const from = T0 + 10 * 86_400_000
    const to = T0 + 20 * 86_400_000
    const inRange = (rec: CallRecord) => rec.callAt >= from && rec.callAt < to
    // A common word with a status: the walk of the status's index probing FTS5 per row (SQL).
    const common = { text: 'fatura ', review: f } as const
    expect(sqlOnly.explain(common as never, 100).plan).toBe('review')
    // What the text matches, from the same search without the review filter (its own plan).
    const withText = new Set(all({ text: 'fatura ' }))
    const expected = brute(f, (rec) => withText.has(rec.callId))
    for (const [path, s] of paths()) {
      expect(all({ review: f, from, to }, s), path).toEqual(brute(f, inRange))
      expect(all({ review: { tags: ['iade'] }, sort: 'date_asc' }, s), path).toEqual(brute({ tags: ['iade'] }).reverse())
      expect(all(common, s), path).toEqual(expected)
      s.resetCaches()
      expect(
        s.page({ results: 'all', ...common } as never, 120, 30).rows.map((r) => r.callId),
        path
      ).toEqual(expected.slice(120, 150))
    }
  })

  it('combines with the scope filter, a date range, an analysis filter and text, each path equal to brute force', () => {
    // The default results filter (answered calls: scope members), an analysis value, a range.
    const from = T0 + 5 * 86_400_000
    const answered = new Set(all({ results: 'answered' } as never))
    const negative = new Set(all({ analysis: [{ kind: 'equals', key: 'sentiment', value: 'olumsuz' }] } as never))
    const withIade = new Set(all({ text: 'iade' }))
    // A rarer word: its matches listed by the bounded count, ANDed with the review filter in memory.
    const withOdeme = new Set(all({ text: 'ödeme' }))
    expect(search.explain({ text: 'ödeme' } as never, 100).plan).toBe('fts')
    expect(search.explain({ text: 'iade' } as never, 100).plan).toBe('walk')
    const shapes: ReviewFilterInput[] = [
      { statuses: ['new'] },
      { hasNote: false, serviceDropped: false },
      { tags: ['iade'] },
      { statuses: ['reviewed'], noteText: 'iade' },
      { scoreMin: 40 }
    ]
    for (const review of shapes) {
      const queries: Array<[SearchQueryInput, (rec: CallRecord) => boolean]> = [
        [{ results: 'answered', review } as never, (rec) => answered.has(rec.callId)],
        [
          { review, from, analysis: [{ kind: 'equals', key: 'sentiment', value: 'olumsuz' }] },
          (rec) => rec.callAt >= from && negative.has(rec.callId)
        ],
        [{ review, text: 'iade', sort: 'date_asc' }, (rec) => withIade.has(rec.callId)],
        [{ review, text: 'ödeme' }, (rec) => withOdeme.has(rec.callId)]
      ]
      for (const [query, test] of queries) {
        let expected = brute(review, test)
        if (query.sort === 'date_asc') expected = expected.reverse()
        for (const [path, s] of paths()) {
          s.resetCaches()
          expect(
            s.page({ results: 'all', ...query } as never, 0, 7).rows.map((r) => r.callId),
            `${path} ${JSON.stringify(query)}`
          ).toEqual(expected.slice(0, 7))
          expect(all(query, s), `${path} ${JSON.stringify(query)}`).toEqual(expected)
          expect(s.count({ results: 'all', ...query } as never), `${path} ${JSON.stringify(query)}`).toBe(expected.length)
        }
      }
    }
  })

  it('combines with text', () => {
    const f: ReviewFilterInput = { statuses: ['reviewed'] }
    const hasIade = (rec: CallRecord) => foldText(`${rec.title} ${rec.summary}`).split(/\s+/).includes('iade')
    const expected = brute(f, hasIade)
    for (const [path, s] of paths()) expect(all({ text: 'iade ', review: f }, s), path).toEqual(expected)
    // The count too: a text-only count must not come from FTS5 alone when a review filter applies.
    for (const text of ['iade ', 'iade', 'fatura ', 'fatura']) {
      const withText = new Set(all({ text }))
      for (const review of [f, { tags: ['iade'] }, { tags: ['kvkk'] }] as ReviewFilterInput[]) {
        const want = brute(review, (rec) => withText.has(rec.callId)).length
        for (const [path, s] of paths())
          expect(s.count({ results: 'all', text, review } as never), `${path} ${text} ${JSON.stringify(review)}`).toBe(want)
      }
    }
  })

  it('filters by review list, and follows writes to annotations', () => {
    const picked = fx.records.filter((_, i) => i % 97 === 0).map((r) => r.callId)
    const list = fx.cache.review.reviewLists.create('L', picked, { kind: 'manual' }, 'x', 1)
    for (const [path, s] of paths()) expect(all({ review: { listId: list.id } }, s), path).toEqual(brute({}, undefined, new Set(picked)))
    const before = search.count({ results: 'all', review: { statuses: ['follow_up'], listId: list.id } } as never)
    const target = picked.find((id) => fx.cache.review.annotations.get(id)?.status !== 'follow_up')!
    fx.cache.review.annotations.write(target, { status: 'follow_up' }, { author: 'x', at: 20, history: true })
    for (const [path, s] of paths())
      expect(s.count({ results: 'all', review: { statuses: ['follow_up'], listId: list.id } } as never), path).toBe(before + 1)
    // The list changes: the calls held for it are read again.
    const more = fx.records.filter((_, i) => i % 89 === 1).map((r) => r.callId)
    fx.cache.review.reviewLists.add(list.id, more)
    for (const [path, s] of paths())
      expect(all({ review: { listId: list.id } }, s), path).toEqual(brute({}, undefined, new Set([...picked, ...more])))
  })

  it('follows every kind of annotation write at once: a save, an import, an undo, the service mark', () => {
    const shapes: ReviewFilterInput[] = [
      { statuses: ['reviewed'] },
      { statuses: ['new'] },
      { tags: ['şikayet'] },
      { noteText: 'yeni not' },
      { hasNote: false },
      { scoreMin: 95 },
      { reviewer: 'zeynep' },
      { serviceDropped: true }
    ]
    const check = (when: string) => {
      for (const f of shapes) {
        const expected = brute(f)
        for (const [path, s] of paths()) {
          expect(all({ review: f }, s), `${when}: ${path} ${JSON.stringify(f)}`).toEqual(expected)
          expect(s.count({ results: 'all', review: f } as never), `${when}: ${path} ${JSON.stringify(f)}`).toBe(expected.length)
        }
      }
    }
    check('before')
    const ids = fx.records.map((r) => r.callId)
    // A save through the store, of each field; a call annotated for the first time.
    const fresh = ids.find((id) => fx.cache.review.annotations.get(id) === null)!
    fx.cache.review.annotations.write(
      fresh,
      { status: 'reviewed', tags: ['şikayet'], note: 'Yeni not' },
      { author: 'zeynep', at: 40, history: true }
    )
    fx.cache.review.annotations.write(ids[3]!, { note: 'YENİ NOT burada' }, { author: 'zeynep', at: 41, history: true })
    fx.cache.review.annotations.write(
      ids[5]!,
      { score: { scorecardId: 'card', version: 1, answers: { q: 10 }, total: 99, failed: false } },
      { author: 'zeynep', at: 42, history: true }
    )
    check('after saves')
    // An import of many (one write of a list of calls).
    fx.cache.review.annotations.writeMany(
      ids.slice(100, 160).map((callId, k) => ({
        callId,
        changes: { status: k % 2 === 0 ? ('new' as const) : ('reviewed' as const), tags: k % 3 === 0 ? ['şikayet'] : [] },
        opts: { author: 'zeynep', at: 50, history: true }
      }))
    )
    check('after an import')
    // Undo the last change, then the note of ids[3].
    fx.cache.review.annotations.undo(null, 'zeynep', 60)
    fx.cache.review.annotations.undo(ids[3]!, 'zeynep', 61)
    check('after undo')
    // The service no longer returns some annotated calls, and returns one again.
    const annotated = ids.filter((id) => fx.cache.review.annotations.get(id) !== null).slice(0, 40)
    const seen = new Set(annotated.slice(0, 20))
    const marked = fx.cache.sync.markServiceDropped(
      'everything',
      T0 - 1,
      T0 + 1e12,
      new Set([...ids.filter((id) => !annotated.includes(id)), ...seen]),
      70
    )
    expect(marked.length).toBeGreaterThan(0)
    check('after the service mark')
  })

  it('offers status, tags and score columns, fills them from the annotation, and sorts by them', () => {
    const offered = search.resultColumns().map((c) => c.column)
    expect(offered).toEqual(expect.arrayContaining(['review:status', 'review:tags', 'review:score']))
    const q = { results: 'all' } as never
    const page = search.page(q, 0, 200, { columns: ['review:status', 'review:tags', 'review:score'] })
    for (const r of page.rows) {
      const a = fx.cache.review.annotations.get(r.callId)
      expect(page.cells![r.callId]).toEqual({
        'review:status': a?.status ?? null,
        'review:tags': a && a.tags.length > 0 ? a.tags.join(', ') : null,
        'review:score': a?.score?.total ?? null
      })
    }
    // By score, highest first, unscored calls last; ties in date order.
    const all = fx.cache.review.annotations.getMany(fx.records.map((r) => r.callId))
    const totalOf = (id: string): number | null => all.get(id)?.score?.total ?? null
    const byScore = search.page(q, 0, 300, { sortBy: { column: 'review:score', dir: 'desc' } }).rows.map((r) => r.callId)
    const totals = byScore.map(totalOf)
    expect(totals[0]).toBe(100)
    for (let i = 1; i < totals.length; i++) if (totals[i] !== null) expect(totals[i]!).toBeLessThanOrEqual(totals[i - 1]!)
    // A save moves the sort at once.
    const last = byScore[byScore.length - 1]!
    fx.cache.review.annotations.write(
      last,
      { score: { scorecardId: 'card', version: 1, answers: { q: 10 }, total: 100.5, failed: false } },
      { author: 'x', at: 30, history: false }
    )
    expect(search.page(q, 0, 1, { sortBy: { column: 'review:score', dir: 'desc' } }).rows[0]!.callId).toBe(last)
    // Status in workflow order.
    const byStatus = [0, 1000, 2000].flatMap((offset) =>
      search.page(q, offset, 1000, { sortBy: { column: 'review:status', dir: 'asc' } }).rows.map((r) => all.get(r.callId)?.status ?? null)
    )
    const rank = (s: string | null) => (s === null ? 9 : STATUSES.indexOf(s as ReviewStatus))
    for (let i = 1; i < byStatus.length; i++) expect(rank(byStatus[i]!)).toBeGreaterThanOrEqual(rank(byStatus[i - 1]!))
  })

  it('shows status, tags and score on the rows of annotated calls only', () => {
    const rows = search.page({ results: 'all' } as never, 0, 200).rows
    const annotated = rows.find((r) => r.review)!
    const a = fx.cache.review.annotations.get(annotated.callId)!
    expect(annotated.review).toEqual({ status: a.status, tags: a.tags, total: a.score?.total ?? null })
    const plain = rows.find((r) => !fx.cache.review.annotations.get(r.callId))
    expect(plain && 'review' in plain).toBe(false)
  })
})

describe('the review index keeps the call time (migration 9)', () => {
  const EVERYTHING = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: false }
  const rec = (callId: string, callAt: number): CallRecord => ({
    callId,
    callAt,
    callDate: new Date(callAt).toISOString(),
    title: callId,
    summary: 'özet',
    analysis: [],
    extra: {}
  })
  const reviewed = (s: LocalSearch) =>
    s.page({ results: 'all', review: { statuses: ['reviewed'] } } as never, 0, 100).rows.map((r) => r.callId)

  it.each([
    ['in memory', true],
    ['in SQL', false]
  ])('for an annotation written before its call, a call moved in time, and a clear that keeps the reviews (%s)', (_, inMemory) => {
    const fx2 = buildFixture(0)
    try {
      const { cache } = fx2
      const s = createSearch(cache, {}, inMemory ? {} : SQL_REVIEWS)
      const write = (records: CallRecord[]) =>
        cache.writePage({ scopeKey: 'everything', records, includeAnalysis: false, checkpoint: null })
      cache.ensureScope('everything', EVERYTHING)
      cache.review.annotations.write('early', { status: 'reviewed', tags: ['t'] }, { author: 'a', at: 1, history: false })
      expect(reviewed(s)).toEqual([])
      write([rec('early', T0 + 1000), rec('late', T0 + 5000), rec('plain', T0 + 3000)])
      cache.review.annotations.write('late', { status: 'reviewed', tags: ['t'] }, { author: 'a', at: 2, history: false })
      expect(s.explain({ review: { statuses: ['reviewed'] } } as never, 100).plan).toBe(inMemory ? 'review-set' : 'review')
      expect(reviewed(s)).toEqual(['late', 'early'])
      // The service moves a call's time: the order follows, for the status and the tag index.
      write([rec('early', T0 + 9000)])
      expect(reviewed(s)).toEqual(['early', 'late'])
      const tagged = s.page({ results: 'all', review: { tags: ['t'] } } as never, 0, 100).rows.map((r) => r.callId)
      expect(tagged).toEqual(['early', 'late'])
      cache.clear({ keepReview: true })
      expect(reviewed(s)).toEqual([])
      cache.ensureScope('everything', EVERYTHING)
      // Synced again in another order: the calls get other row ids ('plain' takes the one
      // 'early' had), which the annotations follow (migration 11).
      write([rec('plain', T0 + 3000), rec('late', T0 + 5000), rec('early', T0 + 2000)])
      expect(reviewed(s)).toEqual(['late', 'early'])
      expect(s.count({ results: 'all', review: { tags: ['t'] } } as never)).toBe(2)
    } finally {
      fx2.close()
    }
  })

  it('after a sync page, holds the annotations in place: reads those of the new calls, not every one', () => {
    const fx2 = buildFixture(0)
    try {
      const { cache } = fx2
      const write = (records: CallRecord[]) =>
        cache.writePage({ scopeKey: 'everything', records, includeAnalysis: false, checkpoint: null })
      cache.ensureScope('everything', EVERYTHING)
      write([rec('a', T0 + 1000), rec('b', T0 + 2000), rec('c', T0 + 3000)])
      cache.review.annotations.write('b', { status: 'reviewed' }, { author: 'x', at: 1, history: false })
      // Annotated before the sync brings its call.
      cache.review.annotations.write('later', { status: 'reviewed' }, { author: 'x', at: 1, history: false })
      const reads = createReviewReads(cache)
      const reader = createSearchReader(cache)
      const byDate = () => {
        const order = Int32Array.from(
          connectionOf(cache).prepare('SELECT id FROM calls ORDER BY call_at, call_id').pluck().all() as number[]
        )
        return { order, rank: rankOf(order) }
      }
      const set = new ReviewSet(reads, new DataWatch(reader.data), byDate)
      const ids = (desc = true) => {
        const rows = set.match(SearchQuery.parse({ review: { statuses: ['reviewed'] } })).walk(desc)(100)
        const name = connectionOf(cache).prepare('SELECT call_id FROM calls WHERE id = ?').pluck()
        return rows.map((id) => name.get(id))
      }
      expect(ids()).toEqual(['b'])
      expect(set.fullReads).toBe(1)
      // A sync page: the annotated call arrives (newest), 'a' moves past 'b', 'd' is new.
      write([rec('later', T0 + 9000), rec('a', T0 + 2500), rec('d', T0 + 500)])
      cache.review.annotations.write('a', { status: 'reviewed' }, { author: 'x', at: 2, history: false })
      expect(ids()).toEqual(['later', 'a', 'b'])
      expect(ids(false)).toEqual(['b', 'a', 'later'])
      write([rec('b', T0 + 9500)])
      expect(ids()).toEqual(['b', 'later', 'a'])
      expect(
        set
          .match(SearchQuery.parse({ review: { statuses: ['new'] } }))
          .has(Number(connectionOf(cache).prepare("SELECT id FROM calls WHERE call_id = 'd'").pluck().get()))
      ).toBe(true)
      expect(set.fullReads).toBe(1)
      // Emptied: every annotation is read again.
      cache.clear({ keepReview: true })
      expect(ids()).toEqual([])
      expect(set.fullReads).toBe(2)
    } finally {
      fx2.close()
    }
  })

  it('migration 11 gives existing annotations their call row id', () => {
    const dir = mkdtempSync(join(tmpdir(), 'callsight-review-m11-'))
    const file = join(dir, 'cache.db')
    try {
      const old = openCache(file, { schemaVersion: 10 })
      old.ensureScope('everything', EVERYTHING)
      old.writePage({
        scopeKey: 'everything',
        records: [rec('a', T0 + 1000), rec('b', T0 + 2000)],
        includeAnalysis: false,
        checkpoint: null
      })
      connectionOf(old)
        .prepare(
          `INSERT INTO annotations (call_id, id, author, created_at, status, status_at, tags_at, note_at, score_at, updated_at, updated_by)
           VALUES (?, ?, 'x', 0, 'reviewed', 0, 0, 0, 0, 0, 'x')`
        )
        .run('a', 'uuid-a')
      old.close()
      const cache = openCache(file)
      try {
        expect(connectionOf(cache).prepare('SELECT call_row FROM annotations').pluck().get()).toBe(1)
        expect(reviewed(createSearch(cache))).toEqual(['a'])
      } finally {
        cache.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
