import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CallRecord } from '../../../../src/shared/domain'
import type { ExportSource } from '../../../../src/core/export/types'

/** Texts an attacker or an unlucky agent could put at the start of a cell. */
export const INJECTIONS = ['=HYPERLINK("http://x","y")', '+SUM(1,2)', '-2+3', '@SUM(A1)', '\tTAB=1', '\rCR=1', '\nLF=1', '＝1+1']

export const ANALYSIS_KEYS = [
  { key: 'sentiment', friendlyName: 'Müşteri duygusu' },
  { key: 'duration_sec', friendlyName: 'Süre (sn)' },
  { key: 'score', friendlyName: 'Skor' },
  { key: 'amount', friendlyName: 'Tutar' },
  { key: 'reason', friendlyName: 'Arama nedeni' },
  { key: 'agent', friendlyName: 'Temsilci' },
  { key: 'silence_ratio', friendlyName: 'Sessizlik oranı' },
  { key: 'escalated', friendlyName: 'Eskalasyon' },
  { key: 'formula', friendlyName: '=Formül' },
  { key: 'note', friendlyName: 'Not' }
] as const

const SUMMARIES = [
  'Müşteri faturasındaki "ek ücret" kalemini sordu; temsilci, iadenin 3 iş günü içinde yapılacağını söyledi.',
  'İlk satır\nİkinci satır, virgül ve "tırnak" ile\r\nüçüncü satır;noktalı virgül',
  'ŞİŞLİ şubesi: ığdır, ÇAĞRI, öğle arası — çözüldü.',
  'E-posta adresi ayse.yilmaz@example.com olarak güncellendi.',
  ''
]
const TITLES = ['Fatura itirazı', 'İnternet kesintisi', 'Adres değişikliği', 'Şikâyet: "geç teslimat"', 'Tarife, paket; değişim']

/** Deterministic pseudo-random numbers, so a failure can be reproduced. */
export function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

/**
 * Realistic cached calls: Turkish text, quotes, separators and line breaks in summaries, an
 * injection payload every few calls, numbers and number-looking text among the analysis
 * values, and every seventh call without analysis.
 */
export function makeRecord(i: number, random: () => number): CallRecord {
  const callAt = Date.UTC(2024, 2, 30) + Math.floor(random() * 3 * 86_400_000)
  const injected = i % 5 === 0 ? INJECTIONS[i % INJECTIONS.length]! : null
  const analysis =
    i % 7 === 3 ? [] : ANALYSIS_KEYS.map(({ key, friendlyName }) => ({ key, friendlyName, value: analysisValue(key, i, random, injected) }))
  return {
    callId: i % 11 === 0 ? `-${i}` : `C-${String(i).padStart(7, '0')}`,
    callAt,
    callDate: new Date(callAt).toISOString(),
    title: injected !== null && i % 2 === 0 ? injected : TITLES[i % TITLES.length]!,
    summary: injected !== null && i % 2 === 1 ? injected + ' özet' : SUMMARIES[i % SUMMARIES.length]!,
    analysis,
    extra: i % 3 === 0 ? { channel: 'voice', contact: 'ali@example.com' } : {}
  }
}

function analysisValue(key: string, i: number, random: () => number, injected: string | null): string {
  switch (key) {
    case 'sentiment':
      return ['Olumlu', 'Olumsuz', 'Nötr'][i % 3]!
    case 'duration_sec':
      return String(30 + Math.floor(random() * 900))
    case 'score':
      return (Math.round((random() * 20 - 10) * 100) / 100).toString()
    case 'amount':
      return i % 4 === 0 ? '-5 TL' : (random() * 1000).toFixed(2)
    case 'reason':
      return injected ?? 'Fatura'
    case 'agent':
      return i % 2 ? 'Çağla Öztürk' : 'İsmail Işık'
    case 'silence_ratio':
      return '0.' + String(Math.floor(random() * 100)).padStart(2, '0')
    case 'escalated':
      return i % 9 === 0 ? 'Evet' : 'Hayır'
    case 'formula':
      return '=1+1'
    default:
      return i % 6 === 0 ? '' : 'Arayan: 0532 123 45 67'
  }
}

export function makeRecords(count: number, seed = 7): CallRecord[] {
  const random = rng(seed)
  return Array.from({ length: count }, (_, i) => makeRecord(i, random))
}

export function sourceOf(records: CallRecord[]): ExportSource {
  const keys = new Map<string, string>()
  for (const r of records) for (const a of r.analysis) if (!keys.has(a.key)) keys.set(a.key, a.friendlyName)
  return { total: records.length, analysisKeys: [...keys].map(([key, friendlyName]) => ({ key, friendlyName })), records }
}

/** A stand-in for src/core/pii's maskText: e-mail addresses and phone numbers become [MASKED]. */
export const testGuard = (text: string): string =>
  text.replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '[MASKED]').replace(/(?:\+90|0)\s?5\d{2}\s?\d{3}\s?\d{2}\s?\d{2}/g, '[MASKED]')

export function tempDir(): { dir: string; files: () => string[]; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'callsight-export-'))
  return { dir, files: () => readdirSync(dir).sort(), remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/**
 * What a spreadsheet text cell must hold for a source text: masked, then neutralized at its
 * start and at the start of every line inside it.
 */
export function expectedText(text: string): string {
  const masked = testGuard(text)
  const lines = masked.split(/(\r\n|\r|\n)/)
  const trigger = /^[=+\-@\t\uFF1D\uFF0B\uFF0D\uFF20]/
  const safe = lines.map((part, i) => (i % 2 === 0 && i > 0 && trigger.test(part) ? `'${part}` : part)).join('')
  return /^[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20]/.test(safe) ? `'${safe}` : safe
}

export const baseMeta = {
  query: { text: 'fatura', sort: 'date_desc' },
  scope: { kind: 'query' },
  appVersion: '0.1.0-test',
  exportedAt: Date.UTC(2024, 3, 1, 9, 30)
}
