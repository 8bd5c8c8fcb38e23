import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { exportCalls } from '../../../../src/core/export'
import { SheetNames } from '../../../../src/core/export/sheet-names'
import { reviewLookup, saveAnnotation, saveScorecard, type ReviewContext } from '../../../../src/core/review/review-service'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery } from '../../../../src/shared/domain'
import { baseMeta, makeRecords, tempDir } from './fixtures'

// Scorecard names are anyone's text; each becomes a sheet's name in an XLSX export.
const HOSTILE = [
  "'Quoted'",
  "Kalite'",
  "'Kalite",
  "''''",
  'History',
  'HISTORY',
  'calls',
  'EXPORT',
  'a:b/c?d*e[f]g\\h',
  `${'x'.repeat(30)}'y`,
  'Uzun kalite formu adı numara bir ve devamı',
  'Uzun kalite formu adı numara bir ve devamı, iki',
  'UZUN KALİTE FORMU ADI NUMARA BİR',
  `${'e'.repeat(30)}😀 emoji`,
  'Şikâyet',
  'şikâyet'
]

/** Excel's rules, checked on what exceljs reads back. */
function excelAccepts(name: string): boolean {
  return (
    name.length >= 1 &&
    name.length <= 31 &&
    !/[:\\/?*[\]]/.test(name) &&
    !name.startsWith("'") &&
    !name.endsWith("'") &&
    name.toLowerCase() !== 'history' &&
    !/[\ud800-\udbff]$/.test(name)
  )
}

let tmp: ReturnType<typeof tempDir>
let cache: CallCache
let ctx: ReviewContext

beforeAll(() => {
  tmp = tempDir()
  cache = openCache(join(tmp.dir, 'cache.db'))
  cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
  cache.writePage({ scopeKey: 'all', records: makeRecords(40, 3), includeAnalysis: true, checkpoint: null })
  let t = 1_000
  ctx = { cache, search: createSearch(cache), author: 'ayşe', now: () => t++, zone: 'UTC' }
  const rows = ctx.search.page(SearchQuery.parse({ results: 'all' }), 0, HOSTILE.length).rows.map((r) => r.callId)
  HOSTILE.forEach((name, i) => {
    const card = saveScorecard(ctx, { name, criteria: [{ id: 'c', name: 'Selam', weight: 1, scale: 'yes_no', critical: false }] })
    saveAnnotation(ctx, { callId: rows[i]!, score: { scorecardId: card.id, answers: { c: 1 } } })
  })
})
afterAll(() => {
  cache.close()
  tmp.remove()
})

describe('XLSX sheet names from scorecard names', () => {
  it('are valid for Excel and distinct, and the workbook reads back', async () => {
    const file = join(tmp.dir, 'hostile.xlsx')
    await exportCalls({
      source: { ...ctx.search.iterate({ kind: 'query', query: SearchQuery.parse({ results: 'all' }) }), review: reviewLookup(cache) },
      file,
      format: 'xlsx',
      columns: ['callId', 'review'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: { ...baseMeta, exportedAt: 0 }
    })
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.readFile(file)
    const names = wb.worksheets.map((w) => w.name)
    expect(names).toHaveLength(HOSTILE.length + 2)
    for (const n of names) expect([n, excelAccepts(n)]).toEqual([n, true])
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(names.length)
    expect(names).toContain('Quoted')
    expect(names).toContain('History (2)')
    expect(names).toContain('calls (2)')
    // Each scorecard sheet holds its one scored call.
    for (const w of wb.worksheets.slice(1, -1)) expect([w.name, w.rowCount]).toEqual([w.name, 2])
  })

  it('cut to 31 characters, a suffix within them, never half an emoji nor an edge quote', () => {
    const names = new SheetNames(['Calls'])
    const long = 'Uzun kalite formu adı numara bir ve devamı'
    expect(names.claim(long, 'S')).toBe('Uzun kalite formu adı numara bi')
    expect(names.claim(long, 'S')).toBe('Uzun kalite formu adı numar (2)')
    expect(names.claim(`${'e'.repeat(30)}😀`, 'S')).toBe('e'.repeat(30))
    expect(names.claim(`${'q'.repeat(30)}'y`, 'S')).toBe('q'.repeat(30))
    expect(names.claim("''''", 'Scorecard')).toBe('Scorecard')
    expect(names.claim('CALLS', 'S')).toBe('CALLS (2)')
  })
})
