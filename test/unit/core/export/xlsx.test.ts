import { join } from 'node:path'
import ExcelJS from 'exceljs'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exportCallsWith } from '../../../../src/core/export/export-calls'
import { ANALYSIS_KEYS, baseMeta, expectedText, makeRecords, sourceOf, tempDir, testGuard } from './fixtures'
import { ALL_COLUMNS, expectedId, expectedValue, wallClockMs } from './helpers'

/** XML turns CR and CRLF in cell text into LF; Excel reads the file the same way. */
const asXml = (text: string): string => text.replace(/\r\n?/g, '\n')

async function readBook(file: string): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook()
  await book.xlsx.readFile(file)
  return book
}

const cellValue = (row: ExcelJS.Row, col: number): unknown => row.getCell(col).value ?? ''

describe('XLSX export', () => {
  let tmp: ReturnType<typeof tempDir>
  beforeEach(() => {
    tmp = tempDir()
  })
  afterEach(() => tmp.remove())

  it('writes text, number and date cells that read back as the cached calls, wide', async () => {
    const records = makeRecords(300)
    const file = join(tmp.dir, 'calls.xlsx')
    const zone = 'America/New_York'
    const result = await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'xlsx',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone,
      meta: baseMeta,
      guard: testGuard
    })
    expect(result).toEqual({ file, count: 300, rows: 300 })
    expect(tmp.files()).toEqual(['calls.xlsx'])

    const sheet = (await readBook(file)).getWorksheet('Calls')!
    expect(sheet.rowCount).toBe(301)
    const header = sheet.getRow(1)
    expect(Array.from({ length: 14 }, (_, i) => cellValue(header, i + 1))).toEqual([
      'Call ID',
      `Call date (${zone})`,
      'Title',
      'Summary',
      ...ANALYSIS_KEYS.map((k) => expectedText(k.friendlyName))
    ])

    let numbers = 0
    records.forEach((r, i) => {
      const row = sheet.getRow(i + 2)
      expect(cellValue(row, 1)).toBe(expectedId(r.callId))
      const date = row.getCell(2)
      expect(date.value).toBeInstanceOf(Date)
      expect((date.value as Date).getTime()).toBe(wallClockMs(r.callAt, zone))
      expect(date.numFmt).toBe('yyyy-mm-dd hh:mm:ss')
      expect(cellValue(row, 3)).toBe(asXml(expectedText(r.title)))
      expect(cellValue(row, 4)).toBe(asXml(expectedText(r.summary)))
      ANALYSIS_KEYS.forEach(({ key }, k) => {
        const item = r.analysis.find((a) => a.key === key)
        const value = cellValue(row, 5 + k)
        if (item === undefined) return expect(value).toBe('')
        const want = expectedValue(item.value)
        if ('number' in want) {
          numbers += 1
          expect(value).toBe(want.number)
        } else {
          expect(value).toBe(asXml(want.text))
        }
      })
    })
    expect(numbers).toBeGreaterThan(800)
  })

  it('neutralizes injection payloads in text cells and keeps negative numbers numeric', async () => {
    const records = makeRecords(60)
    const file = join(tmp.dir, 'inj.xlsx')
    await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'xlsx',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    const sheet = (await readBook(file)).getWorksheet('Calls')!
    const texts: string[] = []
    const negatives: number[] = []
    sheet.eachRow((row) =>
      row.eachCell((cell) => {
        if (typeof cell.value === 'string') texts.push(cell.value)
        if (typeof cell.value === 'number' && cell.value < 0) negatives.push(cell.value)
      })
    )
    for (const payload of ['=HYPERLINK("http://x","y")', '+SUM(1,2)', '-2+3', '@SUM(A1)', '\tTAB=1', '\nLF=1', '＝1+1', '=1+1', '-5 TL']) {
      expect(texts).toContain(`'${payload}`)
    }
    expect(texts).toContain("'\nCR=1")
    for (const text of texts) expect(text).not.toMatch(/^[=+\-@\t\r\n＝＋－＠]/)
    expect(negatives.length).toBeGreaterThan(0)
    // No cell is a formula.
    sheet.eachRow((row) => row.eachCell((cell) => expect(cell.type).not.toBe(ExcelJS.ValueType.Formula)))
    expect(texts.join('\n')).not.toContain('@example.com')
  })

  it('writes the long layout and an "Export" sheet with the query, scope, time and version', async () => {
    const records = makeRecords(20)
    const file = join(tmp.dir, 'long.xlsx')
    const meta = { ...baseMeta, query: { text: '=cmd|calc', from: null }, scope: { kind: 'ids', ids: ['a'] } }
    const result = await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'xlsx',
      columns: ['callId', 'title', 'analysis'],
      analysisLayout: 'long',
      zone: 'Europe/Istanbul',
      meta,
      guard: testGuard
    })
    const expectedRows = records.reduce((n, r) => n + Math.max(1, r.analysis.length), 0)
    expect(result.rows).toBe(expectedRows)
    const book = await readBook(file)
    expect(book.worksheets.map((w) => w.name)).toEqual(['Calls', 'Export'])
    const sheet = book.getWorksheet('Calls')!
    expect([1, 2, 3, 4, 5].map((c) => cellValue(sheet.getRow(1), c))).toEqual(['Call ID', 'Title', 'Parameter', 'Parameter key', 'Value'])
    expect(sheet.rowCount).toBe(expectedRows + 1)
    const first = records[0]!
    expect(first.analysis.length).toBe(10)
    first.analysis.forEach((a, k) => {
      const row = sheet.getRow(2 + k)
      expect(cellValue(row, 1)).toBe(expectedId(first.callId))
      expect(cellValue(row, 3)).toBe(expectedText(a.friendlyName))
      expect(cellValue(row, 4)).toBe(a.key)
      const want = expectedValue(a.value)
      expect(cellValue(row, 5)).toBe('number' in want ? want.number : asXml(want.text))
    })

    const about = new Map<string, unknown>()
    book.getWorksheet('Export')!.eachRow((row) => about.set(String(row.getCell(1).value), row.getCell(2).value))
    expect(about.get('Calls')).toBe(20)
    expect(about.get('Rows')).toBe(expectedRows)
    expect(about.get('App version')).toBe('0.1.0-test')
    expect(about.get('Time zone')).toBe('Europe/Istanbul')
    expect((about.get('Exported at') as Date).getTime()).toBe(wallClockMs(baseMeta.exportedAt, 'Europe/Istanbul'))
    // Read as a person reads it: filters by name, the layout and columns in words.
    expect(about.get('Query')).toBe('Text: =cmd|calc')
    expect(about.get('Columns')).toBe('Call ID, Title, Analysis')
    expect(about.get('Analysis layout')).toBe('Long (one row per parameter)')
    expect(JSON.parse(String(about.get('Scope')))).toEqual(meta.scope)
  })

  it('writes the "Dışa aktarım" sheet in Turkish words, and booleans as Evet/Hayır', async () => {
    const file = join(tmp.dir, 'tr.xlsx')
    const from = Date.UTC(2026, 0, 5, 6, 0, 0)
    const record = { ...makeRecords(1)[0]!, analysis: [{ key: 'resolved', friendlyName: 'Çözüldü', value: 'true' }] }
    await exportCallsWith({
      source: sourceOf([record, { ...record, callId: 'b-2', analysis: [{ key: 'resolved', friendlyName: 'Çözüldü', value: 'FALSE' }] }]),
      file,
      format: 'xlsx',
      columns: ['callId', 'analysis'],
      analysisLayout: 'wide',
      headerLanguage: 'tr',
      zone: 'Europe/Istanbul',
      meta: {
        ...baseMeta,
        query: { text: 'fatura', from, to: null, callTypes: [], results: 'all', hasNewRequest: true, sort: 'date_desc' }
      },
      guard: testGuard
    })
    const book = await readBook(file)
    const sheet = book.getWorksheet('Çağrılar')!
    expect([2, 3].map((r) => cellValue(sheet.getRow(r), 2))).toEqual(['Evet', 'Hayır'])
    const about = new Map<string, unknown>()
    book.getWorksheet('Dışa aktarım')!.eachRow((row) => about.set(String(row.getCell(1).value), row.getCell(2).value))
    expect(about.get('Sorgu')).toBe('Metin: fatura\nBaşlangıç: 2026-01-05T09:00:00+03:00\nSonuçlar: Tüm sonuçlar\nYeni talep: Evet')
    expect(about.get('Analiz düzeni')).toBe('Geniş (her parametre bir sütun)')
    expect(about.get('Sütunlar')).toBe('Çağrı kimliği, Analiz')
    expect(JSON.stringify([...about.values()])).not.toMatch(/wide|callId|"text"/)
  })

  it("replaces characters XML cannot hold and cuts texts at Excel's cell limit", async () => {
    const [record] = makeRecords(1)
    const long = 'ş'.repeat(40_000)
    const file = join(tmp.dir, 'odd.xlsx')
    await exportCallsWith({
      source: sourceOf([{ ...record!, title: 'a\u0000b\u0007c', summary: long }]),
      file,
      format: 'xlsx',
      columns: ['title', 'summary'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    const row = (await readBook(file)).getWorksheet('Calls')!.getRow(2)
    expect(cellValue(row, 1)).toBe('a\uFFFDb\uFFFDc')
    const summary = String(cellValue(row, 2))
    expect(summary).toHaveLength(32_767)
    expect(summary.endsWith('…')).toBe(true)
  })
  it('writes headers and the metadata sheet in Turkish when asked, with filter buttons on the header row', async () => {
    const records = makeRecords(5)
    const file = join(tmp.dir, 'tr.xlsx')
    await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'xlsx',
      columns: ['callId', 'callDate', 'title', 'analysis'],
      analysisLayout: 'long',
      zone: 'Europe/Istanbul',
      headerLanguage: 'tr',
      meta: baseMeta,
      guard: testGuard
    })
    const book = await readBook(file)
    expect(book.worksheets.map((w) => w.name)).toEqual(['Çağrılar', 'Dışa aktarım'])
    const sheet = book.getWorksheet('Çağrılar')!
    expect([1, 2, 3, 4, 5, 6].map((c) => cellValue(sheet.getRow(1), c))).toEqual([
      'Çağrı kimliği',
      'Çağrı tarihi (Europe/Istanbul)',
      'Başlık',
      'Parametre',
      'Parametre anahtarı',
      'Değer'
    ])
    // exceljs reads the autofilter back as the header row's range.
    expect(sheet.autoFilter).toBe('A1:F1')
    const labels: string[] = []
    book.getWorksheet('Dışa aktarım')!.eachRow((row) => labels.push(String(row.getCell(1).value)))
    expect(labels).toEqual([
      'Alan',
      'Çağrı sayısı',
      'Satır sayısı',
      'Dışa aktarım zamanı',
      'Saat dilimi',
      'Uygulama sürümü',
      'Sütunlar',
      'Analiz düzeni',
      'Sorgu',
      'Kapsam',
      'Eşitleme kapsamı'
    ])
  })

  it('writes the coverage sentence in the language of the metadata sheet', async () => {
    const gap = {
      callTypes: ['sales'],
      direction: null,
      results: 'all' as const,
      hasNewRequest: null,
      analysis: true,
      from: null,
      to: null
    }
    const coverage = { complete: false, from: null, to: null, missing: [gap] }
    const sentence = async (headerLanguage: 'en' | 'tr', sheetName: string): Promise<string> => {
      const file = join(tmp.dir, `coverage-${headerLanguage}.xlsx`)
      await exportCallsWith({
        source: sourceOf(makeRecords(2)),
        file,
        format: 'xlsx',
        columns: ['callId'],
        analysisLayout: 'wide',
        zone: 'UTC',
        headerLanguage,
        meta: { ...baseMeta, coverage },
        guard: testGuard
      })
      const rows = new Map<string, unknown>()
      ;(await readBook(file)).getWorksheet(sheetName)!.eachRow((row) => rows.set(String(row.getCell(1).value), row.getCell(2).value))
      return String(rows.get(headerLanguage === 'tr' ? 'Eşitleme kapsamı' : 'Coverage'))
    }
    expect(await sentence('tr', 'Dışa aktarım')).toBe(
      'Eksik, eşitlenmemiş: çağrı türü sales, sonuçlar tümü, analiz dahil: hiç eşitlenmedi. Dosyada serviste olan bazı çağrılar bulunmayabilir.'
    )
    expect(await sentence('en', 'Export')).toBe(
      'Incomplete, not synced: call type sales, results all, with analysis: nothing synced. The file may lack calls the service has.'
    )
  })

  it('puts an autofilter on the English header row too', async () => {
    const file = join(tmp.dir, 'en.xlsx')
    await exportCallsWith({
      source: sourceOf(makeRecords(3)),
      file,
      format: 'xlsx',
      columns: ['callId', 'title'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    expect((await readBook(file)).getWorksheet('Calls')!.autoFilter).toBe('A1:B1')
  })

  it('writes extra fields as typed cells: durations as numbers of seconds, booleans as Evet/Hayır', async () => {
    const file = join(tmp.dir, 'extra.xlsx')
    const [base] = makeRecords(1)
    await exportCallsWith({
      source: sourceOf([{ ...base!, callId: 'x-1', extra: { agentName: 'Ayşe', durationSeconds: 75, callback: true } }]),
      file,
      format: 'xlsx',
      columns: ['callId', 'extra'],
      extraFields: [
        { key: 'agentName', header: 'Temsilci' },
        { key: 'durationSeconds', header: 'Süre (sn)' },
        { key: 'callback', header: 'Geri arama' }
      ],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard,
      headerLanguage: 'tr'
    })
    const sheet = (await readBook(file)).worksheets[0]!
    expect([1, 2, 3, 4].map((c) => cellValue(sheet.getRow(1), c))).toEqual(['Çağrı kimliği', 'Temsilci', 'Süre (sn)', 'Geri arama'])
    expect([1, 2, 3, 4].map((c) => cellValue(sheet.getRow(2), c))).toEqual(['x-1', 'Ayşe', 75, 'Evet'])
  })
})
