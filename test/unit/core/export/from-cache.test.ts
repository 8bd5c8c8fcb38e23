import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { connectionOf } from '../../../../src/core/cache/call-cache'
import { exportCallsWith } from '../../../../src/core/export/export-calls'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord } from '../../../../src/shared/domain'
import { baseMeta, expectedText, makeRecords, tempDir, testGuard } from './fixtures'
import { ALL_COLUMNS, expectedId, expectedValue, isoIn } from './helpers'

const CALLS = 2_000

describe('export from a real SQLite cache', () => {
  let tmp: ReturnType<typeof tempDir>
  let cache: CallCache
  let search: LocalSearch
  beforeEach(() => {
    tmp = tempDir()
    cache = openCache(join(tmp.dir, 'cache.db'))
    const filters = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }
    cache.ensureScope('all', filters)
    const records = makeRecords(CALLS, 21)
    for (let i = 0; i < records.length; i += 500) {
      cache.writePage({ scopeKey: 'all', records: records.slice(i, i + 500), includeAnalysis: true, checkpoint: null })
    }
    search = createSearch(cache)
  })
  afterEach(() => {
    cache.close()
    tmp.remove()
  })

  it('streams a query from the cache to CSV, row for row as the cache holds the calls', async () => {
    const selection = { kind: 'query' as const, query: SearchQuery.parse({ results: 'all' }) }
    const source = search.iterate(selection)
    expect(source.total).toBe(CALLS)
    const file = join(tmp.dir, 'calls.csv')
    const zone = 'Europe/Istanbul'
    const result = await exportCallsWith({
      source,
      file,
      format: 'csv',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone,
      meta: baseMeta,
      guard: testGuard
    })
    expect(result).toMatchObject({ count: CALLS, rows: CALLS, metaFile: `${file}.meta.json` })
    expect(tmp.files().filter((f) => !f.startsWith('cache.db'))).toEqual(['calls.csv', 'calls.csv.meta.json'])

    const cached: CallRecord[] = [...search.iterate(selection).records]
    const rows = parse(readFileSync(file), { bom: true }) as string[][]
    const keys = source.analysisKeys
    expect(rows[0]).toEqual(['Call ID', `Call date (${zone})`, 'Title', 'Summary', ...keys.map((k) => expectedText(k.friendlyName))])
    expect(rows.slice(1)).toEqual(
      cached.map((r) => [
        expectedId(r.callId),
        isoIn(r.callAt, zone),
        expectedText(r.title),
        expectedText(r.summary),
        ...keys.map(({ key }) => {
          const item = r.analysis.find((a) => a.key === key)
          return item === undefined ? '' : expectedValue(item.value).text
        })
      ])
    )
  })

  it('records beside a CSV the query, the export time and what synced scopes do not cover', async () => {
    // The scope covers the first and the last of the three days the calls span, not the middle one.
    const day = 86_400_000
    const start = Date.UTC(2024, 2, 30)
    cache.sync.addCoverage('all', start, start + day)
    cache.sync.addCoverage('all', start + 2 * day, start + 3 * day)
    const query = SearchQuery.parse({ results: 'all', from: start, to: start + 3 * day })
    const coverage = search.coverage(query)
    const file = join(tmp.dir, 'partly.csv')
    const result = await exportCallsWith({
      source: search.iterate({ kind: 'query', query }),
      file,
      format: 'csv',
      columns: ['callId'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: { ...baseMeta, query: { kind: 'query', query }, coverage },
      guard: testGuard
    })
    const meta = JSON.parse(readFileSync(result.metaFile!, 'utf8')) as Record<string, unknown>
    expect(meta).toMatchObject({
      application: 'Callsight',
      file: 'partly.csv',
      format: 'csv',
      exportedAt: '2024-04-01T09:30:00+00:00',
      total: result.count,
      query: { kind: 'query', query: { from: start, to: start + 3 * day } },
      coverage: { complete: false, missing: [{ callTypes: [], results: 'all', from: start + day, to: start + 2 * day }] }
    })
  })

  it('exports chosen calls to XLSX in the order they were chosen', async () => {
    const ids = ['C-0000042', '-0', 'C-0001999', 'C-0000007']
    const source = search.iterate({ kind: 'ids', ids })
    const file = join(tmp.dir, 'chosen.xlsx')
    await exportCallsWith({
      source,
      file,
      format: 'xlsx',
      columns: ['callId', 'title'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(file)
    const sheet = book.getWorksheet('Calls')!
    expect(sheet.rowCount).toBe(5)
    ids.forEach((id, i) => {
      const cached = search.get(id)!
      expect(sheet.getRow(i + 2).getCell(1).value).toBe(expectedId(id))
      expect(sheet.getRow(i + 2).getCell(2).value).toBe(expectedText(cached.title).replace(/\r\n?/g, '\n'))
    })
  })

  it('reads the records with their analysis in batches, not a statement per call', () => {
    const db = connectionOf(cache)
    const prepare = db.prepare.bind(db)
    let prepared = 0
    let records: CallRecord[] = []
    db.prepare = ((sql: string) => {
      prepared++
      return prepare(sql)
    }) as typeof db.prepare
    try {
      const source = search.iterate({ kind: 'query', query: SearchQuery.parse({ results: 'all' }) })
      prepared = 0
      records = [...source.records]
    } finally {
      db.prepare = prepare
    }
    expect(prepared).toBeLessThan(CALLS / 100)
    expect(records).toHaveLength(CALLS)
    // Batches of calls share one read of their analysis, each call's in the order the service sent it.
    expect(records.map((r) => r.analysis)).toEqual(records.map((r) => cache.getCall(r.callId)!.analysis))
    expect(records.some((r) => r.analysis.length > 1)).toBe(true)
  })
})
