import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../../src/core/cache'
import { exportCalls } from '../../../../src/core/export'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type AnalysisLayout, type CallRecord, type CsvDialect } from '../../../../src/shared/domain'
import { rng, tempDir } from './fixtures'

/**
 * The CSV export's bytes, pinned. The expected files were written by the export as it was
 * before its hot path was rewritten (quoting, masking's pre-check, reading records), so any
 * drift in quoting, masking, neutralization or the dialects shows as a changed byte.
 * CALLSIGHT_WRITE_GOLDEN=1 writes them again: only ever from code known to be right.
 */
const GOLDEN = join(__dirname, 'golden')
const WRITE = process.env['CALLSIGHT_WRITE_GOLDEN'] === '1'

/** Personal data in the forms the guard knows, each somewhere a writer must mask it. */
const PII = [
  '0532 123 45 67',
  '+90 (532) 123-45-67',
  '0090 212 444 55 66',
  '+44 20 7946 0958',
  '444 0 444',
  '10000000146',
  '100 000 001 46',
  'ayşe.yılmaz@örnek.com.tr',
  'a.b+c@example.co',
  '０５３２ １２３ ４５ ６７',
  'x＠example.com',
  '0532\u200b123\u00a045 67'
]
/** Cells a spreadsheet would run, and their neighbours after a line break. */
const FORMULAS = ['=HYPERLINK("http://x","y")', '+SUM(1,2)', '-2+3', '@SUM(A1)', '\tTAB', '\rCR', '\nLF', '＝1+1', 'a\n=1+1', 'b\r\n@x']
/** Quoting: separators of both dialects, quotes, line breaks of every kind, spaces at the ends. */
const AWKWARD = ['a,b', 'a;b', 'say "hi"', '"', 'line1\nline2', 'line1\r\nline2', 'cr\ronly', ' padded ', '', 'tab\tinside', "it's"]
const TURKISH = ['Çağrı İŞLEM ığdır ŞÜÖ', 'Müşteri memnun; iade 3 iş günü', 'ı İ i I ğ Ğ ş Ş ç Ç ö Ö ü Ü', 'Ödeme — “tırnak” ‘tek’']
const NUMBERS = ['42', '-7', '0.5', '3.14159', '-0.25', '007', '1e5', '12345678901234567', '1,5', '100.', 'true', 'FALSE', ' true ']

function pick<T>(list: readonly T[], random: () => number): T {
  return list[Math.floor(random() * list.length)]!
}

/** Text made of a few of the awkward pieces, some with a formula or personal data inside. */
function text(random: () => number): string {
  const pools = [PII, FORMULAS, AWKWARD, TURKISH, NUMBERS]
  const parts: string[] = []
  for (let n = 1 + Math.floor(random() * 3); n > 0; n--) parts.push(pick(pick(pools, random), random))
  return parts.join(pick([' ', ', ', '\n', '; '], random))
}

const KEYS = [
  ['sentiment', 'Duygu'],
  ['score', 'Skor'],
  ['contact', 'İletişim (0532 123 45 67)'],
  ['formula', '=Formül'],
  ['quoted', 'Say "when", then; stop'],
  ['mail', 'mail@example.com'],
  ['turkish', 'Çözüldü mü?'],
  ['number', 'Sayı']
] as const

function record(i: number, random: () => number): CallRecord {
  const callAt = Date.UTC(2024, 2, 30) + Math.floor(random() * 3 * 86_400_000) + (i % 4 === 0 ? 123 : 0)
  const analysis =
    i % 9 === 4
      ? []
      : KEYS.filter(() => random() < 0.8).map(([key, friendlyName]) => ({
          key,
          friendlyName,
          value: key === 'number' ? pick(NUMBERS, random) : key === 'score' ? String(Math.floor(random() * 100)) : text(random)
        }))
  // The same key twice in one call: the wide cell lists both.
  if (i % 11 === 5) analysis.push({ key: 'sentiment', friendlyName: 'Duygu', value: pick([...TURKISH, ...PII], random) })
  const extra: Record<string, unknown> = {}
  if (i % 2 === 0) extra['queue'] = text(random)
  if (i % 3 === 0) extra['seconds'] = Math.floor(random() * 900)
  if (i % 5 === 0) extra['vip'] = random() < 0.5
  if (i % 7 === 0) extra['caller'] = { phone: pick(PII, random), note: pick(FORMULAS, random) }
  if (i % 13 === 0) extra['ratio'] = random()
  return {
    callId: i % 10 === 0 ? `=C${i}` : i % 10 === 1 ? `-${i}` : `C-${String(i).padStart(5, '0')}`,
    callAt,
    callDate: new Date(callAt).toISOString(),
    title: text(random),
    summary: Array.from({ length: 1 + (i % 3) }, () => text(random)).join(' '),
    analysis,
    extra
  }
}

const CALLS = 120
const COMBOS: Array<{ name: string; dialect: CsvDialect; layout: AnalysisLayout; language: 'en' | 'tr' }> = [
  { name: 'wide-comma-en', dialect: 'comma', layout: 'wide', language: 'en' },
  { name: 'wide-semicolon-tr', dialect: 'semicolon', layout: 'wide', language: 'tr' },
  { name: 'long-comma-tr', dialect: 'comma', layout: 'long', language: 'tr' },
  { name: 'long-semicolon-en', dialect: 'semicolon', layout: 'long', language: 'en' }
]

describe('the CSV export, byte for byte', () => {
  let tmp: ReturnType<typeof tempDir>
  let cache: CallCache
  beforeAll(() => {
    tmp = tempDir()
    cache = openCache(join(tmp.dir, 'cache.db'))
    cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
    const random = rng(2026)
    const records = Array.from({ length: CALLS }, (_, i) => record(i, random))
    for (let i = 0; i < records.length; i += 100) {
      cache.writePage({ scopeKey: 'all', records: records.slice(i, i + 100), includeAnalysis: true, checkpoint: null })
    }
  })
  afterAll(() => {
    cache.close()
    tmp.remove()
  })

  for (const combo of COMBOS) {
    it(`writes what it wrote before: ${combo.name}`, async () => {
      const search = createSearch(cache)
      const source = search.iterate({ kind: 'query', query: SearchQuery.parse({ results: 'all' }) })
      expect(source.total).toBe(CALLS)
      const file = join(tmp.dir, `${combo.name}.csv`)
      await exportCalls({
        source,
        file,
        format: 'csv',
        columns: ['callId', 'callDate', 'title', 'summary', 'extra', 'analysis'],
        extraFields: [
          { key: 'queue', header: 'Queue; "line"' },
          { key: 'seconds', header: 'Seconds' },
          { key: 'vip', header: '=VIP' },
          { key: 'caller', header: 'Caller' },
          { key: 'ratio', header: 'Ratio' }
        ],
        analysisLayout: combo.layout,
        headerLanguage: combo.language,
        csvDialect: combo.dialect,
        zone: 'Europe/Istanbul',
        sidecar: false,
        meta: { query: { results: 'all' }, appVersion: 'golden', exportedAt: Date.UTC(2024, 3, 1) }
      })
      const written = readFileSync(file)
      const expected = join(GOLDEN, `${combo.name}.csv`)
      if (WRITE) {
        mkdirSync(GOLDEN, { recursive: true })
        writeFileSync(expected, written)
      }
      // Compared as text for a readable diff; the byte length catches what text would hide.
      const want = readFileSync(expected)
      expect(written.toString('utf8')).toBe(want.toString('utf8'))
      expect(written.length).toBe(want.length)
      // Whatever else changed, nothing the guard masks got through.
      expect(written.toString('utf8')).not.toMatch(/0532 123 45 67|example\.com|10000000146/)
    })
  }
})
