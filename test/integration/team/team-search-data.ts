/**
 * Generated calls for the team cache search tests: Turkish text with capitals and dotless ı,
 * analysis items (text, numbers, a comma decimal), scopes by call type, direction, answered
 * and new request, and calls sharing a second (ties ordered by call id).
 */
import type { CallCache, WritePageInput } from '../../../src/core/cache'
import { PgSyncStore } from '../../../src/core/team'
import type { CallRecord } from '../../../src/shared/domain'
import { prng } from '../../support/prng'

const WORDS = [
  'fatura',
  'faturası',
  'faturalar',
  'İPTAL',
  'iptal',
  'ışık',
  'IŞIK',
  'Işıl',
  'şikayet',
  'Şikâyet',
  'kargo',
  'gecikti',
  'ödeme',
  'İstanbul',
  'istanbul',
  'iade',
  'itiraz',
  'müşteri',
  'Müşteri',
  'kayıt',
  'KAYIT',
  'abonelik',
  'hat',
  'taşıma',
  'modem',
  'arıza',
  'internet',
  'yavaş',
  'teşekkür',
  'çağrı',
  'ÇAĞRI',
  'görüşme',
  'eposta',
  'sözleşme',
  'ıslak',
  'İade'
]
const TOPICS = ['Fatura', 'İptal', 'Arıza', 'Kargo']
const SENTIMENT = ['Olumlu', 'OLUMSUZ', 'Nötr', 'NÖTR']
const AGENTS = ['Gökhan Işık', 'Ayşe Yılmaz', 'İlker Şahin', 'Işıl Çelik']

export const START = Date.UTC(2026, 0, 1)

export function makeCalls(n: number, seed = 7): CallRecord[] {
  const rnd = prng(seed)
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!
  const out: CallRecord[] = []
  for (let i = 0; i < n; i++) {
    // Every fifth call shares its second with the one before: ties ordered by id.
    const at = START + Math.floor(i - (i % 5 === 4 ? 1 : 0)) * 60_000
    const topic = pick(TOPICS)
    const words: string[] = []
    const len = 6 + Math.floor(rnd() * 14)
    for (let k = 0; k < len; k++) words.push(WORDS[Math.floor(WORDS.length * rnd() * rnd())]!)
    if (rnd() < 0.2) words.push('kargo', 'gecikti')
    const analysis = [
      { key: 'sentiment', friendlyName: 'Duygu Durumu', value: pick(SENTIMENT) },
      { key: 'score', friendlyName: 'Temsilci Puanı', value: String(40 + Math.floor(rnd() * 61)) },
      {
        key: 'csat',
        friendlyName: 'Memnuniyet',
        value: rnd() < 0.5 ? `${1 + Math.floor(rnd() * 4)},5` : String(1 + Math.floor(rnd() * 5))
      },
      { key: 'agent', friendlyName: 'Temsilci', value: pick(AGENTS) },
      { key: 'keywords', friendlyName: 'Anahtar Kelimeler', value: rnd() < 0.3 ? 'ödeme, iptal' : pick(WORDS) },
      { key: 'resolved', friendlyName: 'Çözüldü', value: rnd() < 0.7 ? 'Evet' : 'HAYIR' }
    ]
    out.push({
      callId: `c-${String(i).padStart(5, '0')}-${(i * 7919) % 1000}`,
      callAt: at,
      callDate: new Date(at).toISOString().replace('Z', '+00:00'),
      title: `${topic} görüşmesi ${pick(['İSTANBUL', 'Işıklı', 'ankara'])}`,
      summary: words.join(rnd() < 0.5 ? ' ' : ', '),
      analysis: rnd() < 0.05 ? [] : analysis,
      extra: {}
    })
  }
  return out
}

export const SCOPES = {
  all: { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true },
  fatura: { callTypes: ['Fatura'], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: false },
  inbound: { callTypes: [], direction: 1, results: 'all' as const, hasNewRequest: null, includeAnalysis: false },
  answered: { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: false },
  newRequest: { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: true, includeAnalysis: false }
}

/**
 * The pages both stores are written: every call with analysis, then subsets into the other
 * scopes without it; a tenth of the Fatura calls come back there with a changed summary (a
 * write without analysis keeps the analysis words searchable).
 */
export function pagesOf(calls: readonly CallRecord[]): WritePageInput[] {
  const pages: WritePageInput[] = []
  for (let i = 0; i < calls.length; i += 200) {
    pages.push({ scopeKey: 'all', records: calls.slice(i, i + 200), includeAnalysis: true, checkpoint: null })
  }
  const subset = (key: keyof typeof SCOPES, test: (r: CallRecord, i: number) => boolean, edit?: (r: CallRecord) => CallRecord): void => {
    const records = calls.filter(test).map((r) => (edit ? edit(r) : r))
    for (let i = 0; i < records.length; i += 200)
      pages.push({ scopeKey: key, records: records.slice(i, i + 200), includeAnalysis: false, checkpoint: null })
  }
  subset(
    'fatura',
    (r) => r.title.startsWith('Fatura'),
    (r) => (r.callId.endsWith('3') ? { ...r, analysis: [], summary: `${r.summary} güncellendi İADE` } : { ...r, analysis: [] })
  )
  subset(
    'inbound',
    (_r, i) => i % 3 === 0,
    (r) => ({ ...r, analysis: [] })
  )
  subset(
    'answered',
    (_r, i) => i % 4 !== 1,
    (r) => ({ ...r, analysis: [] })
  )
  subset(
    'newRequest',
    (_r, i) => i % 7 === 2,
    (r) => ({ ...r, analysis: [] })
  )
  return pages
}

/** The pages written into a team cache through the worker's store, every scope first, ten pages a transaction. */
export async function writeTeamPages(url: string, schema: string, pages: readonly WritePageInput[]): Promise<void> {
  const store = await PgSyncStore.open({ url, schema })
  try {
    for (const key of Object.keys(SCOPES) as Array<keyof typeof SCOPES>) await store.ensureScope(key, SCOPES[key])
    for (let i = 0; i < pages.length; i += 10) await store.writePages(pages.slice(i, i + 10))
  } finally {
    await store.close()
  }
}

/** The same pages into a local cache, as a sync writes them. */
export function writeLocalPages(cache: CallCache, pages: readonly WritePageInput[]): void {
  for (const key of Object.keys(SCOPES) as Array<keyof typeof SCOPES>) cache.ensureScope(key, SCOPES[key])
  for (let i = 0; i < pages.length; i += 10) cache.writePages(pages.slice(i, i + 10))
}
