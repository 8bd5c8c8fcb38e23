import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { importAnnotations, parseAnnotations } from '../../../../src/core/review/import'
import { exportAnnotations } from '../../../../src/core/review/transfer'

// `annotations import` takes no more than an in-app save would, into a real cache file.

const NOW = Date.UTC(2026, 10, 1, 12)
const YEAR_275760 = 8_640_000_000_000_000 // the largest Date, in ms
let dir = ''
let cache: CallCache
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-import-'))
  cache = openCache(join(dir, 'c.db'))
})
afterEach(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

const CARD = {
  id: 'card-1',
  version: 1,
  name: 'Form',
  createdAt: NOW - 10_000,
  author: 'ayse',
  criteria: [{ id: 'q', name: 'Soru', weight: 1, scale: '1_5', critical: false }]
}

function entry(callId: string, over: Record<string, unknown> = {}) {
  const at = NOW - 60_000
  return {
    id: `id-${callId.slice(0, 20)}`,
    callId,
    author: 'ayse',
    status: 'reviewed',
    tags: ['iade'],
    note: 'not',
    score: null,
    createdAt: at,
    statusAt: at,
    tagsAt: at,
    noteAt: at,
    scoreAt: 0,
    updatedAt: at,
    updatedBy: 'ayse',
    serviceDroppedAt: null,
    ...over
  }
}

const fileOf = (annotations: unknown[], scorecards: unknown[] = [CARD]): string =>
  JSON.stringify({ format: 'callsight-annotations', version: 1, exportedAt: NOW, scorecards, annotations }, null, 2)

describe('annotations import bounds', () => {
  it('refuses what a save would, by line and reason, and imports the rest', () => {
    const far = { statusAt: YEAR_275760, tagsAt: YEAR_275760, noteAt: YEAR_275760, updatedAt: YEAR_275760 }
    const entries = [
      entry('good-1'),
      entry('many-tags', { tags: Array.from({ length: 20_000 }, (_, i) => `t${i}`) }),
      entry('long-tag', { tags: ['x'.repeat(200_000)] }),
      entry('c'.repeat(5_000)),
      entry('long-note', { note: 'n'.repeat(10_001) }),
      entry('bad-status', { status: 'done' }),
      entry('future', far),
      entry('an-hour-ahead', { noteAt: NOW + 3_600_000 }),
      entry('unknown-card', { score: { scorecardId: 'nope', version: 1, answers: {}, total: 1e308, failed: false }, scoreAt: NOW - 1 }),
      entry('out-of-scale', { score: { scorecardId: 'card-1', version: 1, answers: { q: 9 }, total: 1, failed: false }, scoreAt: NOW - 1 }),
      entry('line\nbreak', { id: 'id-line-break' }),
      entry('good-2', {
        noteAt: NOW + 60_000,
        score: { scorecardId: 'card-1', version: 1, answers: { q: 5 }, total: 1e308, failed: true },
        scoreAt: NOW - 1
      })
    ]
    const text = fileOf(entries)
    const report = importAnnotations(cache, parseAnnotations(text, 'json'), NOW)

    // Two good entries, and two whose score alone is left out.
    expect(report).toMatchObject({ added: 4, updated: 0, unchanged: 0 })
    const refusedIds = report.refused.map((r) => r.callId)
    expect(refusedIds).toEqual(entries.slice(1, -1).map((e) => e.callId.slice(0, 200)))
    expect(report.refused.map((r) => r.part)).toEqual([...Array(7).fill('entry'), 'score', 'score', 'entry'])
    const reasons = report.refused.map((r) => r.reason)
    expect(reasons[0]).toMatch(/^tags/)
    expect(reasons[1]).toMatch(/^tags\.0/)
    expect(reasons[2]).toMatch(/^callId/)
    expect(reasons[3]).toMatch(/^note/)
    expect(reasons[4]).toMatch(/^status/)
    expect(reasons[5]).toMatch(/later than this computer's clock/)
    expect(reasons[6]).toMatch(/^noteAt: .*later than/)
    expect(reasons[7]).toMatch(/scorecard nope version 1 is unknown/)
    expect(reasons[8]).toMatch(/^score: .*from 1 to 5/)
    expect(reasons[9]).toMatch(/^callId: holds control characters/)
    // Each line is where its entry starts in the file: a reader finds it in an editor.
    const lines = text.split('\n')
    for (const r of report.refused) {
      expect(lines[r.line - 1]!.trim()).toBe('{')
      expect(lines.slice(r.line, r.line + 3).join('\n')).toContain(JSON.stringify(r.callId).slice(0, 40))
    }

    expect(cache.review.annotations.get('good-1')).toMatchObject({ status: 'reviewed', tags: ['iade'] })
    // The total is the scorecard's, not the file's 1e308, and not failed.
    expect(cache.review.annotations.get('good-2')?.score).toMatchObject({ total: 100, failed: false, version: 1 })
    for (const r of report.refused.filter((x) => x.part === 'entry')) expect(cache.review.annotations.get(r.callId!)).toBeNull()
    // A score that cannot be computed here is left out; the rest of its entry is imported.
    expect(cache.review.annotations.get('unknown-card')).toMatchObject({ score: null, status: 'reviewed', tags: ['iade'] })
    expect(cache.review.annotations.get('out-of-scale')?.score).toBeNull()
  })

  it('a time from the file cannot win a later in-app change', () => {
    const future = NOW + 3_600_000 * 24 * 365
    const report = importAnnotations(cache, parseAnnotations(fileOf([entry('call-1', { noteAt: future, updatedAt: future })]), 'json'), NOW)
    expect(report.refused).toHaveLength(1)
    cache.review.annotations.write('call-1', { note: 'mine' }, { author: 'me', at: NOW + 1000, history: true })
    expect(cache.review.annotations.get('call-1')?.note).toBe('mine')
  })

  it('refuses a scorecard of the file dated in the future or out of bounds, and the scores on it', () => {
    const card = { ...CARD, id: 'card-9', createdAt: YEAR_275760 }
    const score = { scorecardId: 'card-9', version: 1, answers: { q: 3 }, total: 50, failed: false }
    const report = importAnnotations(cache, parseAnnotations(fileOf([entry('call-1', { score, scoreAt: NOW })], [card]), 'json'), NOW)
    expect(report.refused.map((r) => [r.part, r.reason])).toEqual([
      ['entry', expect.stringMatching(/^scorecard: createdAt/)],
      ['score', expect.stringMatching(/unknown/)]
    ])
    expect(cache.review.scorecards.get('card-9')).toBeNull()
    expect(cache.review.annotations.get('call-1')?.score).toBeNull()
  })

  it('CSV: the same checks, by the line each row starts on', () => {
    const src = openCache(join(dir, 'src.db'))
    try {
      const w = (callId: string, changes: Parameters<CallCache['review']['annotations']['write']>[1]) =>
        src.review.annotations.write(callId, changes, { author: 'ayse', at: NOW - 5_000, history: true })
      w('a-1', { note: 'iki\nsatır' })
      w('a-2', { status: 'reviewed' })
      w('a-3', { tags: ['ok'] })
      const text = exportAnnotations(src, 'csv', NOW).text
      // Row a-2 claims a time in the year 275760, a-3 a tag list far past the limit.
      const tampered = text
        .replace(/("?)a-2\1,(.*)/, (row) => row.replace(String(NOW - 5_000), String(YEAR_275760)))
        .replace('"[""ok""]"', `"${JSON.stringify(Array.from({ length: 60 }, () => 'ok')).replace(/"/g, '""')}"`)
      const report = importAnnotations(cache, parseAnnotations(tampered, 'csv'), NOW)
      expect(report.added).toBe(1)
      const lines = tampered.replace(/^\uFEFF/, '').split('\n') // lines as an editor counts them
      expect(report.refused.map((r) => [r.callId, lines[r.line - 1]!.split(',')[1]])).toEqual([
        ['a-2', 'a-2'],
        ['a-3', 'a-3']
      ])
      expect(report.refused[0]!.reason).toMatch(/later than/)
      expect(report.refused[1]!.reason).toMatch(/^tags/)
      expect(cache.review.annotations.get('a-1')?.note).toBe('iki\nsatır')
    } finally {
      src.close()
    }
  })
})
