import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import ExcelJS from 'exceljs'
import { afterAll, describe, expect, it } from 'vitest'
import { exportCallsWith } from '../../../src/core/export/export-calls'
import type { CallRecord } from '../../../src/shared/domain'

const run = promisify(execFile)

// A CSV exported under Turkish headers, opened the way Turkish LibreOffice Calc opens it
// (separator ';', decimal comma, Turkish locale): the columns are the export's, a score is a
// number, Turkish text and the boolean word come through intact. Debian's libreoffice-calc,
// headless, converts it to XLSX; exceljs reads that back.

const calls: CallRecord[] = [
  {
    callId: 'c-1',
    callAt: Date.UTC(2026, 0, 5, 9, 0, 0),
    callDate: '2026-01-05T12:00:00+03:00',
    title: 'Fatura itirazı; İşlem çığ gibi',
    summary: 'Müşteri ödemeyi sordu, 1,5 TL fark',
    analysis: [
      { key: 'score', friendlyName: 'Temsilci Puanı', value: '0.21' },
      { key: 'sentiment', friendlyName: 'Duygu Durumu', value: 'Olumsuz' },
      { key: 'resolved', friendlyName: 'Çözüldü', value: 'true' },
      { key: 'aht', friendlyName: 'Süre', value: '372' }
    ],
    extra: {}
  },
  {
    callId: 'c-2',
    callAt: Date.UTC(2026, 0, 5, 10, 0, 0),
    callDate: '2026-01-05T13:00:00+03:00',
    title: 'İptal talebi',
    summary: 'Kısa görüşme',
    analysis: [
      { key: 'score', friendlyName: 'Temsilci Puanı', value: '-3.75' },
      { key: 'resolved', friendlyName: 'Çözüldü', value: 'false' }
    ],
    extra: {}
  }
]

describe('a Turkish CSV in LibreOffice Calc', () => {
  const dir = mkdtempSync(join(tmpdir(), 'callsight-lo-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('opens with the right columns, numbers as numbers and Turkish text intact', async () => {
    const file = join(dir, 'cagrilar.csv')
    const keys = [
      { key: 'score', friendlyName: 'Temsilci Puanı' },
      { key: 'sentiment', friendlyName: 'Duygu Durumu' },
      { key: 'resolved', friendlyName: 'Çözüldü' },
      { key: 'aht', friendlyName: 'Süre' }
    ]
    const result = await exportCallsWith({
      source: { total: calls.length, analysisKeys: keys, records: calls },
      file,
      format: 'csv',
      columns: ['callId', 'title', 'analysis'],
      analysisLayout: 'wide',
      headerLanguage: 'tr',
      zone: 'Europe/Istanbul',
      meta: { query: { text: '' }, appVersion: 'test', exportedAt: Date.UTC(2026, 0, 6) },
      guard: (t) => t
    })
    expect(result.count).toBe(2)

    // 59 ';', 34 '"', 76 UTF-8, from row 1, locale 1055 (Turkish): Calc's Turkish CSV import.
    const profile = pathToFileURL(join(dir, 'lo-profile')).href
    await run(
      'soffice',
      [`-env:UserInstallation=${profile}`, '--headless', '--infilter=CSV:59,34,76,1,,1055', '--convert-to', 'xlsx', '--outdir', dir, file],
      { timeout: 120_000 }
    )
    expect(readdirSync(dir)).toContain('cagrilar.xlsx')

    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(join(dir, 'cagrilar.xlsx'))
    const sheet = book.worksheets[0]!
    const row = (n: number): unknown[] => (sheet.getRow(n).values as unknown[]).slice(1)
    expect(row(1)).toEqual(['Çağrı kimliği', 'Başlık', 'Temsilci Puanı', 'Duygu Durumu', 'Çözüldü', 'Süre'])
    expect(row(2)).toEqual(['c-1', 'Fatura itirazı; İşlem çığ gibi', 0.21, 'Olumsuz', 'Evet', 372])
    // Calc leaves the empty last cell out.
    expect(row(3).slice(0, 5)).toEqual(['c-2', 'İptal talebi', -3.75, undefined, 'Hayır'])
    expect(typeof sheet.getCell('C2').value).toBe('number')
  }, 150_000)
})
