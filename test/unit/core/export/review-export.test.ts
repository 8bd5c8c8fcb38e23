import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { exportCalls } from '../../../../src/core/export'
import { reviewLookup, saveAnnotation, saveScorecard, type ReviewContext } from '../../../../src/core/review/review-service'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery } from '../../../../src/shared/domain'
import { baseMeta, makeRecords, tempDir } from './fixtures'

// The `review` export column and, in XLSX, a sheet per scorecard, from a real cache.

let tmp: ReturnType<typeof tempDir>
let cache: CallCache
let ctx: ReviewContext
let scored: string[] = []
let cardId = ''

beforeAll(() => {
  tmp = tempDir()
  cache = openCache(join(tmp.dir, 'cache.db'))
  cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
  cache.writePage({ scopeKey: 'all', records: makeRecords(40, 3), includeAnalysis: true, checkpoint: null })
  let t = 1_000
  ctx = { cache, search: createSearch(cache), author: 'ayşe', now: () => t++, zone: 'Europe/Istanbul' }
  const v1 = saveScorecard(ctx, {
    name: 'Kalite: formu/2026',
    criteria: [{ id: 'greet', name: 'Selam', weight: 1, scale: 'yes_no', critical: false }]
  })
  cardId = v1.id
  const rows = ctx.search.page(SearchQuery.parse({ results: 'all' }), 0, 5).rows.map((r) => r.callId)
  saveAnnotation(ctx, {
    callId: rows[0]!,
    status: 'reviewed',
    tags: ['iade', 'kvkk'],
    note: '=1+1 arayan 0532 123 45 67',
    score: { scorecardId: cardId, answers: { greet: 1 } }
  })
  saveScorecard(
    ctx,
    {
      name: 'Kalite: formu/2026',
      criteria: [
        { id: 'greet', name: 'Selamlama', weight: 1, scale: 'yes_no', critical: false },
        { id: 'close', name: 'Kapanış', weight: 1, scale: '0_10', critical: false }
      ]
    },
    cardId
  )
  saveAnnotation(ctx, { callId: rows[1]!, status: 'follow_up', score: { scorecardId: cardId, answers: { greet: 0, close: 8 } } })
  saveAnnotation(ctx, { callId: rows[2]!, tags: ['iade'] })
  scored = rows.slice(0, 2)
})
afterAll(() => {
  cache.close()
  tmp.remove()
})

const source = (query = {}) => ({
  ...ctx.search.iterate({ kind: 'query', query: SearchQuery.parse({ results: 'all', ...query }) }),
  review: reviewLookup(cache)
})
const meta = { ...baseMeta, exportedAt: 0 }

describe('review in exports', () => {
  it('CSV: the annotation columns, note masked and made inert, empty for calls without one', async () => {
    const file = join(tmp.dir, 'r.csv')
    await exportCalls({ source: source(), file, format: 'csv', columns: ['callId', 'review'], analysisLayout: 'wide', zone: 'UTC', meta })
    const rows = parse(readFileSync(file), { bom: true }) as string[][]
    expect(rows[0]).toEqual(['Call ID', 'Review status', 'Tags', 'Note', 'Score', 'Scorecard', 'Reviewer', 'Reviewed at'])
    const first = rows.find((r) => r[0] === scored[0])!
    expect(first.slice(1, 7)).toEqual(['Reviewed', 'iade, kvkk', "'=1+1 arayan [MASKED]", '100', 'Kalite: formu/2026 v1', 'ayşe'])
    expect(first[7]).toMatch(/^1970-01-01T00:00:01/)
    expect(rows.find((r) => r[0] === scored[1])!.slice(1, 6)).toEqual(['Needs follow-up', '', '', '40', 'Kalite: formu/2026 v2'])
    expect(rows.filter((r) => r[1] === '').length).toBe(40 - 3)
  })

  it('XLSX: a sheet per scorecard with every criterion answer, read back', async () => {
    const file = join(tmp.dir, 'r.xlsx')
    await exportCalls({
      source: source({ review: { scorecardId: cardId } }),
      file,
      format: 'xlsx',
      columns: ['callId', 'title', 'review'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta
    })
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.readFile(file)
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Calls', 'Kalite  formu 2026', 'Export'])
    const sheet = wb.getWorksheet('Kalite  formu 2026')!
    const values = sheet
      .getSheetValues()
      .slice(1)
      .map((r) => (r as unknown[]).slice(1))
    expect(values[0]).toEqual(['Call ID', 'Call date (UTC)', 'Version', 'Total', 'Critical failed', 'Selamlama', 'Kapanış'])
    const byId = new Map(values.slice(1).map((r) => [r[0], r]))
    expect(byId.get(scored[0])!.slice(2)).toEqual([1, 100, 'no', 1])
    expect(byId.get(scored[1])!.slice(2)).toEqual([2, 40, 'no', 0, 8])
    expect(wb.getWorksheet('Calls')!.rowCount).toBe(3)
  })

  it('writes the review headers and the scorecard sheet in Turkish when asked', async () => {
    const csv = join(tmp.dir, 'tr.csv')
    await exportCalls({
      source: source(),
      file: csv,
      format: 'csv',
      columns: ['callId', 'review'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta,
      headerLanguage: 'tr'
    })
    // Turkish headers write the Turkish dialect: ';' between fields.
    const rows = parse(readFileSync(csv), { bom: true, delimiter: ';' }) as string[][]
    expect(rows[0]).toEqual(['Çağrı kimliği', 'İnceleme durumu', 'Etiketler', 'Not', 'Puan', 'Puan kartı', 'İnceleyen', 'İnceleme zamanı'])
    // The status cell in the same language as the headers, as the app names it.
    expect(rows.find((r) => r[0] === scored[0])![1]).toBe('İncelendi')
    expect(rows.find((r) => r[0] === scored[1])![1]).toBe('Takip gerekli')
    const xlsx = join(tmp.dir, 'tr.xlsx')
    await exportCalls({
      source: source({ review: { scorecardId: cardId } }),
      file: xlsx,
      format: 'xlsx',
      columns: ['callId', 'review'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta,
      headerLanguage: 'tr'
    })
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.readFile(xlsx)
    expect(wb.worksheets.map((w) => w.name)).toEqual(['Çağrılar', 'Kalite  formu 2026', 'Dışa aktarım'])
    const values = wb
      .getWorksheet('Kalite  formu 2026')!
      .getSheetValues()
      .slice(1)
      .map((r) => (r as unknown[]).slice(1))
    expect(values[0]).toEqual(['Çağrı kimliği', 'Çağrı tarihi (UTC)', 'Sürüm', 'Toplam', 'Kritik kriter başarısız', 'Selamlama', 'Kapanış'])
    expect(values.slice(1).map((r) => r[4])).toEqual(['hayır', 'hayır'])
    const calls = wb
      .getWorksheet('Çağrılar')!
      .getSheetValues()
      .slice(2)
      .map((r) => (r as unknown[]).slice(1))
    expect(new Map(calls.map((r) => [r[0], r[1]]))).toEqual(
      new Map([
        [scored[0], 'İncelendi'],
        [scored[1], 'Takip gerekli']
      ])
    )
    const json = join(tmp.dir, 'tr.json')
    await exportCalls({
      source: source(),
      file: json,
      format: 'json',
      columns: ['callId', 'review'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta,
      headerLanguage: 'tr'
    })
    const first = (JSON.parse(readFileSync(json, 'utf8')) as { calls: Array<{ callId: string; review: unknown }> }).calls.find(
      (c) => c.callId === scored[1]
    )!
    expect(first.review).toMatchObject({ status: 'follow_up', statusLabel: 'Takip gerekli' })
  })

  it('JSON: the annotation per call, null without one', async () => {
    const file = join(tmp.dir, 'r.json')
    await exportCalls({ source: source(), file, format: 'json', columns: ['callId', 'review'], analysisLayout: 'wide', zone: 'UTC', meta })
    const calls = (
      JSON.parse(readFileSync(file, 'utf8')) as {
        calls: Array<{ callId: string; review: { note: string; score: { total: number } } | null }>
      }
    ).calls
    const first = calls.find((c) => c.callId === scored[0])!
    expect(first.review).toMatchObject({
      status: 'reviewed',
      statusLabel: 'Reviewed',
      note: '=1+1 arayan [MASKED]',
      score: { total: 100, version: 1 }
    })
    expect(calls.filter((c) => c.review === null)).toHaveLength(37)
  })
})
