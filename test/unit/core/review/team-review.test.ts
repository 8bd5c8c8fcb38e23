import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { spreadEvenly } from '../../../../src/core/review/assign'
import {
  answerCalibration,
  calibrationView,
  createCalibration,
  setCalibrationReference,
  submitCalibration
} from '../../../../src/core/review/calibration'
import { assignCalls, leadStats, myAssignments, spreadList } from '../../../../src/core/review/lead-view'
import { createList, saveAnnotation, type ReviewContext } from '../../../../src/core/review/review-service'
import type { LocalSearch } from '../../../../src/core/search'

// Assignments and calibration in a real cache file: the even spread, "my assignments" with
// the next unreviewed first, and the blind rule of calibration.

const NOW = Date.UTC(2026, 10, 2, 9)
let dir = ''
let cache: CallCache
let clock = NOW
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-team-review-'))
  cache = openCache(join(dir, 'c.db'))
  clock = NOW
})
afterEach(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Lists here are built from ids, which never reach search. */
const as = (author: string): ReviewContext => ({
  cache,
  search: undefined as unknown as LocalSearch,
  author,
  now: () => ++clock,
  zone: 'Europe/Istanbul'
})

const ids = (n: number, prefix = 'c'): string[] => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`)

describe('spreading evenly', () => {
  it('deals the calls in order to whoever has fewest, so counts differ by at most one', () => {
    const m = spreadEvenly(ids(7), ['ayse', 'mehmet', 'zeynep'])
    expect([...m.values()]).toEqual(['ayse', 'mehmet', 'zeynep', 'ayse', 'mehmet', 'zeynep', 'ayse'])
    expect(spreadEvenly(ids(7), ['ayse', 'mehmet', 'zeynep'])).toEqual(m)
    for (const n of [1, 10, 101]) {
      const counts = new Map<string, number>()
      for (const r of spreadEvenly(ids(n), ['a', 'b', 'c', 'd']).values()) counts.set(r, (counts.get(r) ?? 0) + 1)
      const c = [...counts.values()]
      expect(Math.max(...c) - Math.min(...c)).toBeLessThanOrEqual(1)
      expect(c.reduce((s, x) => s + x, 0)).toBe(n)
    }
  })

  it('gives fewer new calls to a reviewer who already holds some', () => {
    const m = spreadEvenly(ids(4), ['ayse', 'mehmet'], new Map([['ayse', 3]]))
    expect([...m.values()]).toEqual(['mehmet', 'mehmet', 'mehmet', 'ayse'])
  })

  it('spreads a list in a cache, all of it or only what is not assigned yet', () => {
    const list = createList(as('lead'), 'Kasım örneği', { kind: 'ids', ids: ids(7) })
    expect(spreadList(as('lead'), list.id, ['ayse', 'mehmet'], false)).toEqual([
      { reviewer: 'ayse', count: 4 },
      { reviewer: 'mehmet', count: 3 }
    ])
    expect(cache.review.assignments.ofList(list.id).map((r) => r.reviewer)).toEqual([
      'ayse',
      'mehmet',
      'ayse',
      'mehmet',
      'ayse',
      'mehmet',
      'ayse'
    ])
    cache.review.reviewLists.add(list.id, ['c8', 'c9', 'c10'])
    expect(spreadList(as('lead'), list.id, ['ayse', 'mehmet', 'zeynep'], true)).toEqual([
      { reviewer: 'ayse', count: 4 },
      { reviewer: 'mehmet', count: 3 },
      { reviewer: 'zeynep', count: 3 }
    ])
    expect(() => assignCalls(as('lead'), list.id, ['not-in-list'], 'ayse')).toThrow(/not in that review list/)
  })
})

describe('my assignments', () => {
  it('puts the next unreviewed first, older lists first, and counts progress per reviewer and list', () => {
    const first = createList(as('lead'), 'Ekim', { kind: 'ids', ids: ids(4) })
    const second = createList(as('lead'), 'Kasım', { kind: 'ids', ids: ids(2, 'k') })
    assignCalls(as('lead'), first.id, ids(4), 'ayse')
    assignCalls(as('lead'), second.id, ['k1'], 'ayse')
    assignCalls(as('lead'), second.id, ['k2'], 'mehmet')
    saveAnnotation(as('ayse'), { callId: 'c1', status: 'reviewed' })
    saveAnnotation(as('ayse'), { callId: 'c3', status: 'in_review' })
    const mine = myAssignments(cache, 'ayse')
    expect(mine.items.map((i) => [i.callId, i.done])).toEqual([
      ['c2', false],
      ['c3', false],
      ['c4', false],
      ['k1', false],
      ['c1', true]
    ])
    expect(mine.items[0]).toMatchObject({ listName: 'Ekim', position: 1, status: 'new' })
    expect([mine.assigned, mine.reviewed]).toEqual([5, 1])
    saveAnnotation(as('ayse'), { callId: 'c2', status: 'follow_up' })
    expect(myAssignments(cache, 'ayse').items[0]!.callId).toBe('c3')
    expect(myAssignments(cache, 'mehmet').items.map((i) => i.callId)).toEqual(['k2'])

    const p = cache.review.assignments.progress()
    expect(p.byReviewer).toEqual([
      { reviewer: 'ayse', assigned: 5, reviewed: 2 },
      { reviewer: 'mehmet', assigned: 1, reviewed: 0 }
    ])
    expect(p.byList.find((l) => l.listId === first.id)).toMatchObject({ size: 4, assigned: 4, reviewed: 2 })
    expect(p.byList.find((l) => l.listId === second.id)!.reviewers).toEqual([
      { reviewer: 'ayse', assigned: 1, reviewed: 0 },
      { reviewer: 'mehmet', assigned: 1, reviewed: 0 }
    ])
    // A call taken out of the list, and a deleted list, take their assignments with them.
    cache.review.reviewLists.removeCalls(first.id, ['c4'])
    cache.review.reviewLists.delete(second.id)
    expect(myAssignments(cache, 'ayse').items.map((i) => i.callId)).toEqual(['c3', 'c1', 'c2'])
  })
})

const CARD = {
  name: 'Kalite',
  criteria: [
    { id: 'greet', name: 'Selamlama', weight: 1, scale: 'yes_no' as const, critical: true },
    { id: 'solve', name: 'Çözüm', weight: 2, scale: '1_5' as const, critical: false }
  ]
}

describe('calibration', () => {
  it('is blind until a reviewer submits, and kept apart from the calls’ annotations', () => {
    const card = cache.review.scorecards.save(CARD, undefined, 'lead', NOW)
    const s = createCalibration(as('lead'), {
      name: 'Kasım kalibrasyonu',
      scorecardId: card.id,
      calls: { kind: 'ids', ids: ids(3) },
      reviewers: ['ayse', 'mehmet']
    })
    expect(s).toMatchObject({ scorecardVersion: 1, callIds: ids(3), reviewers: ['ayse', 'mehmet'], createdBy: 'lead', submitted: [] })

    answerCalibration(as('ayse'), s.id, 'c1', { greet: 1, solve: 4 })
    answerCalibration(as('mehmet'), s.id, 'c1', { greet: 1, solve: 2 })
    setCalibrationReference(as('lead'), s.id, 'c1', { greet: 1, solve: 4 })

    const blind = calibrationView(cache, s.id, 'ayse')
    expect(blind).toMatchObject({ blind: true, isReviewer: true, others: [], reference: {}, result: null })
    expect(blind.mine).toEqual({ c1: { greet: 1, solve: 4 } })

    const afterSubmit = submitCalibration(as('ayse'), s.id)
    expect(afterSubmit.blind).toBe(false)
    expect(afterSubmit.others).toEqual([{ reviewer: 'mehmet', answers: { c1: { greet: 1, solve: 2 } } }])
    expect(afterSubmit.reference).toEqual({ c1: { greet: 1, solve: 4 } })
    expect(afterSubmit.result!.reviewers.map((r) => [r.reviewer, r.reference])).toEqual([
      ['ayse', 1],
      ['mehmet', 0.5]
    ])
    // mehmet has not submitted: still blind though ayse has.
    expect(calibrationView(cache, s.id, 'mehmet')).toMatchObject({ blind: true, others: [], result: null })
    // The lead (no reviewer of the session) sees everything.
    expect(calibrationView(cache, s.id, 'lead').others.map((o) => o.reviewer)).toEqual(['ayse', 'mehmet'])

    expect(() => answerCalibration(as('ayse'), s.id, 'c2', { greet: 0 })).toThrow(/submitted already/)
    expect(() => answerCalibration(as('zeynep'), s.id, 'c2', { greet: 0 })).toThrow(/not a reviewer/)
    expect(() => answerCalibration(as('mehmet'), s.id, 'c2', { solve: 9 })).toThrow(/from 1 to 5/)
    expect(() => setCalibrationReference(as('mehmet'), s.id, 'c2', { greet: 0 })).toThrow(/cannot set/)
    expect(cache.review.annotations.get('c1')).toBeNull()
    expect(leadStats(cache, 'UTC', null).perReviewer).toEqual([])
  })

  it('gives alpha and percent agreement per criterion and per call', () => {
    const card = cache.review.scorecards.save(CARD, undefined, 'lead', NOW)
    const s = createCalibration(as('lead'), {
      name: 'K',
      scorecardId: card.id,
      calls: { kind: 'ids', ids: ids(3) },
      reviewers: ['ayse', 'mehmet']
    })
    const given: Record<string, Array<[number, number]>> = {
      ayse: [
        [1, 5],
        [0, 3],
        [1, 4]
      ],
      mehmet: [
        [1, 5],
        [0, 2],
        [0, 4]
      ]
    }
    for (const [who, rows] of Object.entries(given)) {
      rows.forEach(([greet, solve], i) => answerCalibration(as(who), s.id, `c${i + 1}`, { greet, solve }))
      submitCalibration(as(who), s.id)
    }
    const r = calibrationView(cache, s.id, 'lead').result!
    const greet = r.criteria.find((c) => c.criterionId === 'greet')!
    // Units (1,1), (0,0), (1,0): nominal alpha 4/9 (worked in agreement.test.ts), 2 of 3 pairs agree.
    expect(greet.metric).toBe('nominal')
    expect(greet.alpha).toBeCloseTo(4 / 9, 10)
    expect(greet.percent).toBeCloseTo(2 / 3, 10)
    const solve = r.criteria.find((c) => c.criterionId === 'solve')!
    expect(solve.metric).toBe('interval')
    expect(solve.widest).toBe(1)
    // Call 3: ayse passes the critical criterion, mehmet fails it (total 0).
    expect(r.calls[2]!.totals).toEqual([
      { reviewer: 'ayse', total: 83.3, failed: false },
      { reviewer: 'mehmet', total: 0, failed: true }
    ])
    expect(r.calls[0]!.spread).toEqual({ min: 100, max: 100, sd: 0, count: 2 })
  })
})

describe("the lead's view", () => {
  it("counts the other reviewers' evaluations pulled from the team cache, beside this workstation's own scores", () => {
    const card = cache.review.scorecards.save(CARD, undefined, 'lead', NOW)
    saveAnnotation(as('lead'), { callId: 'c1', score: { scorecardId: card.id, answers: { greet: 1, solve: 5 } } })
    // What a pull keeps of others' evaluations (review-apply.ts): their score as JSON, by author.
    const evaluation = (answers: Record<string, number>, total: number, failed: boolean): string =>
      JSON.stringify({ scorecardId: card.id, version: card.version, answers, total, failed })
    cache.review.share.putTeamEvaluation('c1', 'ayse', evaluation({ greet: 1, solve: 3 }, 66.7, false), '', NOW)
    cache.review.share.putTeamEvaluation('c2', 'ayse', evaluation({ greet: 0, solve: 5 }, 0, true), 'not greeted', NOW)
    cache.review.share.putTeamEvaluation('c2', 'mehmet', evaluation({ greet: 1, solve: 5 }, 100, false), '', NOW)
    // A note alone is no score.
    cache.review.share.putTeamEvaluation('c3', 'mehmet', null, 'listen again', NOW)

    const stats = leadStats(cache, 'UTC', null)
    expect(stats.perReviewer.map((r) => [r.name, r.count, r.mean])).toEqual([
      ['ayse', 2, 33.4],
      ['lead', 1, 100],
      ['mehmet', 1, 100]
    ])
    expect(stats.failedCritical.map((f) => [f.name, f.count])).toEqual([['Selamlama', 1]])
  })
})
