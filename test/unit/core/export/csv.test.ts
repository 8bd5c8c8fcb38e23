import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exportCalls } from '../../../../src/core/export'
import { exportCallsWith } from '../../../../src/core/export/export-calls'
import { ANALYSIS_KEYS, baseMeta, expectedText, makeRecords, sourceOf, tempDir, testGuard } from './fixtures'
import { ALL_COLUMNS, expectedId, expectedValue, isoIn } from './helpers'
import { linesOf, readStrictCsv } from './strict-csv'

interface Field {
  value: string
  quoted: boolean
}

/** Parses the file back, keeping whether each field was quoted. */
function readCsv(file: string): { raw: Buffer; rows: Field[][] } {
  const raw = readFileSync(file)
  const rows = parse(raw, {
    bom: true,
    cast: (value, context) => ({ value, quoted: context.quoting }) as unknown as string
  }) as unknown as Field[][]
  return { raw, rows }
}

describe('CSV export', () => {
  let tmp: ReturnType<typeof tempDir>
  beforeEach(() => {
    tmp = tempDir()
  })
  afterEach(() => tmp.remove())

  it('writes a BOM, CRLF records and every call as it was cached, wide', async () => {
    const records = makeRecords(400)
    const file = join(tmp.dir, 'calls.csv')
    const zone = 'Europe/Istanbul'
    const result = await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'csv',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone,
      meta: baseMeta,
      guard: testGuard
    })
    expect(result).toEqual({ file, metaFile: `${file}.meta.json`, count: 400, rows: 400 })
    expect(tmp.files()).toEqual(['calls.csv', 'calls.csv.meta.json'])

    const { raw, rows } = readCsv(file)
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    expect(raw.toString('utf8')).toContain(`Call ID,Call date (${zone}),Title,Summary,Müşteri duygusu,`)
    expect(raw.toString('utf8').split('\r\n')[0]).not.toContain('\n')
    const header = rows[0]!.map((f) => f.value)
    expect(header).toEqual([
      'Call ID',
      `Call date (${zone})`,
      'Title',
      'Summary',
      ...ANALYSIS_KEYS.map((k) => expectedText(k.friendlyName))
    ])
    expect(header).toContain("'=Formül")
    expect(rows).toHaveLength(401)

    let numbers = 0
    records.forEach((r, i) => {
      const row = rows[i + 1]!
      expect(row.map((f) => f.value).slice(0, 4)).toEqual([
        expectedId(r.callId),
        isoIn(r.callAt, zone),
        expectedText(r.title),
        expectedText(r.summary)
      ])
      ANALYSIS_KEYS.forEach(({ key }, k) => {
        const field = row[4 + k]!
        const item = r.analysis.find((a) => a.key === key)
        if (item === undefined) return expect(field.value).toBe('')
        const want = expectedValue(item.value)
        expect(field.value).toBe(want.text)
        if ('number' in want) {
          numbers += 1
          expect(field.quoted).toBe(false)
        }
      })
    })
    expect(numbers).toBeGreaterThan(1000)
  })

  it('neutralizes every injection payload and masks what the guard masks', async () => {
    const records = makeRecords(80)
    const file = join(tmp.dir, 'inj.csv')
    await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'csv',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    const { rows } = readCsv(file)
    const cells = rows.slice(1).flatMap((r) => r.map((f) => f.value))
    for (const payload of [
      '=HYPERLINK("http://x","y")',
      '+SUM(1,2)',
      '-2+3',
      '@SUM(A1)',
      '\tTAB=1',
      '\rCR=1',
      '\nLF=1',
      '＝1+1',
      '=1+1',
      '-5 TL'
    ]) {
      expect(cells).toContain(`'${payload}`)
    }
    // Nothing dangerous at the start of any cell, except a real negative number.
    for (const cell of cells) {
      if (/^[=+\-@\t\r\n＝＋－＠]/.test(cell)) expect(cell).toMatch(/^-(?:0|[1-9]\d*)(?:\.\d+)?$/)
    }
    expect(cells.join('\n')).not.toContain('ayse.yilmaz@example.com')
    expect(cells.join('\n')).not.toContain('0532 123 45 67')
    expect(cells).toContain('E-posta adresi [MASKED] olarak güncellendi.')
    expect(cells).toContain('Arayan: [MASKED]')
  })

  it('keeps one row per call for a reader that ends a row at any bare CR or LF, as a spreadsheet does', async () => {
    const hostile = [
      { title: 'Başlık\r=1+1', summary: 'Özet\n=2+2' },
      { title: 'İki\rsatır', summary: 'Bir\nİki\r\nÜç\rDört' },
      { title: 'Sonda CR\r', summary: '\n+SUM(A1)\n-5\n@x' },
      { title: 'a\r\n\r\n=HYPERLINK("http://x")', summary: 'düz metin' }
    ]
    const records = makeRecords(40).map((r, i) => (i < hostile.length ? { ...r, ...hostile[i]! } : r))
    const file = join(tmp.dir, 'strict.csv')
    await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'csv',
      columns: ['callId', 'title', 'summary'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    const rows = readStrictCsv(readFileSync(file, 'utf8'))
    expect(rows).toHaveLength(records.length + 1)
    for (const row of rows) expect(row).toHaveLength(3)
    records.forEach((r, i) => {
      const row = rows[i + 1]!
      expect(row.map((f) => f.value)).toEqual([expectedId(r.callId), expectedText(r.title), expectedText(r.summary)])
      for (const field of row) if (/[\r\n]/.test(field.value)) expect(field.quoted).toBe(true)
    })
    expect(rows[1]![1]!.value).toBe("Başlık\r'=1+1")
    expect(rows[1]![2]!.value).toBe("Özet\n'=2+2")
  })

  it('starts no line of any cell with a formula trigger, so even a reader that splits lines gets text', async () => {
    const records = makeRecords(200).map((r, i) => (i % 4 === 0 ? { ...r, summary: `${r.summary}\r\n=1+1\r-2+3\n@SUM(A1)\n\t=1\n＝1` } : r))
    const file = join(tmp.dir, 'lines.csv')
    await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'csv',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    const cells = readStrictCsv(readFileSync(file, 'utf8')).flatMap((row) => row.map((f) => f.value))
    let lines = 0
    for (const cell of cells) {
      if (/^-(?:0|[1-9]\d*)(?:\.\d+)?$/.test(cell)) continue // a real negative number
      for (const line of linesOf(cell)) {
        lines += 1
        expect(line, JSON.stringify(cell)).not.toMatch(/^[=+\-@\t＝＋－＠]/)
      }
    }
    expect(lines).toBeGreaterThan(cells.length)
  })

  it('writes one row per analysis item in the long layout, and one for a call without analysis', async () => {
    const records = makeRecords(50)
    const file = join(tmp.dir, 'long.csv')
    const result = await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'csv',
      columns: ['callId', 'analysis'],
      analysisLayout: 'long',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    const expected = records.flatMap((r) =>
      r.analysis.length === 0
        ? [[expectedId(r.callId), '', '', '']]
        : r.analysis.map((a) => [expectedId(r.callId), expectedText(a.friendlyName), expectedText(a.key), expectedValue(a.value).text])
    )
    expect(records.some((r) => r.analysis.length === 0)).toBe(true)
    expect(result).toMatchObject({ count: 50, rows: expected.length })
    const { rows } = readCsv(file)
    expect(rows[0]!.map((f) => f.value)).toEqual(['Call ID', 'Parameter', 'Parameter key', 'Value'])
    expect(rows.slice(1).map((r) => r.map((f) => f.value))).toEqual(expected)
  })

  it('keeps the chosen column order and leaves analysis out when not chosen', async () => {
    const records = makeRecords(10)
    const file = join(tmp.dir, 'cols.csv')
    await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'csv',
      columns: ['summary', 'callId'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    const { rows } = readCsv(file)
    expect(rows[0]!.map((f) => f.value)).toEqual(['Summary', 'Call ID'])
    expect(rows[3]!.map((f) => f.value)).toEqual([expectedText(records[2]!.summary), expectedId(records[2]!.callId)])
    expect(rows[3]![0]!.quoted).toBe(true)
  })

  it('writes dates in a DST zone with the offset of each instant', async () => {
    const spring = Date.UTC(2024, 2, 31, 1) // Berlin: 02:00 CET becomes 03:00 CEST
    const records = makeRecords(6).map((r, i) => ({ ...r, callAt: spring - 2_000 + i * 1_000 }))
    const file = join(tmp.dir, 'dst.csv')
    await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'csv',
      columns: ['callDate'],
      analysisLayout: 'wide',
      zone: 'Europe/Berlin',
      meta: baseMeta,
      guard: testGuard
    })
    const { rows } = readCsv(file)
    expect(rows.slice(1).map((r) => r[0]!.value)).toEqual([
      '2024-03-31T01:59:58+01:00',
      '2024-03-31T01:59:59+01:00',
      '2024-03-31T03:00:00+02:00',
      '2024-03-31T03:00:01+02:00',
      '2024-03-31T03:00:02+02:00',
      '2024-03-31T03:00:03+02:00'
    ])
  })

  it('writes a header alone for an empty selection', async () => {
    const file = join(tmp.dir, 'empty.csv')
    const result = await exportCallsWith({
      source: { total: 0, analysisKeys: [], records: [] },
      file,
      format: 'csv',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    expect(result).toMatchObject({ count: 0, rows: 0 })
    expect(readCsv(file).rows.map((r) => r.map((f) => f.value))).toEqual([['Call ID', 'Call date (UTC)', 'Title', 'Summary']])
  })

  it("runs the app's PII guard by default, again on values the cache already masked", async () => {
    const [base] = makeRecords(1)
    const record = {
      ...base!,
      title: '[MASKED] aradı',
      summary: 'Beni 0532 123 45 67 numarasından ya da ayse@example.com adresinden arayın.',
      analysis: [{ key: 'note', friendlyName: 'Not', value: '+90 532 123 45 67' }]
    }
    const file = join(tmp.dir, 'default.csv')
    await exportCalls({
      source: sourceOf([record]),
      file,
      format: 'csv',
      columns: ['title', 'summary', 'analysis'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta
    })
    const { rows } = readCsv(file)
    expect(rows[1]!.map((f) => f.value)).toEqual([
      '[MASKED] aradı',
      'Beni [MASKED] numarasından ya da [MASKED] adresinden arayın.',
      '[MASKED]'
    ])
  })
})

describe('CSV dialect', () => {
  let tmp: ReturnType<typeof tempDir>
  beforeEach(() => {
    tmp = tempDir()
  })
  afterEach(() => tmp.remove())

  const record = {
    ...makeRecords(1)[0]!,
    callId: 'd-1',
    analysis: [
      { key: 'score', friendlyName: 'Puan', value: '0.21' },
      { key: 'ok', friendlyName: 'Çözüldü', value: 'true' }
    ]
  }
  const write = async (file: string, extra: { headerLanguage?: 'tr' | 'en'; csvDialect?: 'comma' | 'semicolon' }): Promise<string[][]> => {
    await exportCallsWith({
      source: sourceOf([record]),
      file,
      format: 'csv',
      columns: ['callId', 'analysis'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard,
      ...extra
    })
    const text = readFileSync(file, 'utf8')
    return parse(text, { bom: true, delimiter: text.includes(';') ? ';' : ',' }) as string[][]
  }

  it('follows the headers’ language: Turkish writes ";" and decimal commas, English "," and points', async () => {
    expect(await write(join(tmp.dir, 'tr.csv'), { headerLanguage: 'tr' })).toEqual([
      ['Çağrı kimliği', 'Puan', 'Çözüldü'],
      ['d-1', '0,21', 'Evet']
    ])
    expect(readFileSync(join(tmp.dir, 'tr.csv'), 'utf8')).toContain('d-1;0,21;Evet')
    expect(await write(join(tmp.dir, 'en.csv'), { headerLanguage: 'en' })).toEqual([
      ['Call ID', 'Puan', 'Çözüldü'],
      ['d-1', '0.21', 'Yes']
    ])
  })

  it('writes the chosen extra fields under the user’s Turkish names, typed, at the place of "extra"', async () => {
    const file = join(tmp.dir, 'extra.csv')
    await exportCallsWith({
      source: sourceOf([
        { ...record, extra: { agentName: 'Ayşe Yılmaz', durationSeconds: 312.5, language: 'tr-TR', transferred: false, queue: '=cmd' } }
      ]),
      file,
      format: 'csv',
      columns: ['callId', 'extra', 'analysis'],
      extraFields: [
        { key: 'agentName', header: 'Temsilci' },
        { key: 'durationSeconds', header: 'Süre (sn)' },
        { key: 'transferred', header: 'Aktarıldı' },
        { key: 'queue', header: 'Kuyruk' },
        { key: 'missing', header: 'Yok' }
      ],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard,
      headerLanguage: 'tr'
    })
    const text = readFileSync(file, 'utf8')
    expect(parse(text, { bom: true, delimiter: ';' })).toEqual([
      ['Çağrı kimliği', 'Temsilci', 'Süre (sn)', 'Aktarıldı', 'Kuyruk', 'Yok', 'Puan', 'Çözüldü'],
      ['d-1', 'Ayşe Yılmaz', '312,5', 'Hayır', "'=cmd", '', '0,21', 'Evet']
    ])
  })

  it('is switchable either way', async () => {
    expect((await write(join(tmp.dir, 'en-semi.csv'), { headerLanguage: 'en', csvDialect: 'semicolon' }))[1]).toEqual([
      'd-1',
      '0,21',
      'Yes'
    ])
    expect(readFileSync(join(tmp.dir, 'en-semi.csv'), 'utf8')).toContain('d-1;0,21;Yes')
    expect((await write(join(tmp.dir, 'tr-comma.csv'), { headerLanguage: 'tr', csvDialect: 'comma' }))[1]).toEqual(['d-1', '0.21', 'Evet'])
  })

  it('leaves the sidecar out when it is not wanted (a browser download is one file)', async () => {
    const file = join(tmp.dir, 'one.csv')
    const r = await exportCallsWith({
      source: sourceOf([record]),
      file,
      format: 'csv',
      columns: ['callId'],
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard,
      sidecar: false
    })
    expect(r.metaFile).toBeUndefined()
    expect(tmp.files()).toEqual(['one.csv'])
  })
})
