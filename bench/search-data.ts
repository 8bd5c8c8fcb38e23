/**
 * Deterministic synthetic calls for the search benchmark: Turkish and English words with
 * controlled document frequencies, so each selectivity is known in advance.
 */
import { prng } from '../test/support/prng'
import type { CallRecord } from '../src/shared/domain'

/** In about 90% of calls. */
export const COMMON_TERM = 'müşteri'
/** In about 1% of calls, written upper-case in the data ("İPTAL"), searched as "iptal". */
export const ONE_PERCENT_TERM = 'İPTAL'
/** In about 0.01% of calls. */
export const RARE_TERM = 'kuzguncuk'

export { prng }

export const START_MS = Date.UTC(2025, 0, 1)
const SPAN_MS = 365 * 24 * 3600 * 1000

const SYLLABLES = ['ka', 'le', 'mi', 'şo', 'tu', 'ra', 'nü', 'gö', 'çe', 'bı', 'da', 'si', 'yo', 'ze', 'pa', 'ğa', 'lu', 'me', 'ti', 'vo']
const ENGLISH = ['call', 'customer', 'refund', 'order', 'delivery', 'late', 'agent', 'payment', 'card', 'account', 'thanks', 'issue']
const TOPICS = [
  'fatura',
  'kargo',
  'iade',
  'kampanya',
  'tarife',
  'internet',
  'modem',
  'borç',
  'taahhüt',
  'numara taşıma',
  'roaming',
  'ödeme',
  'şikayet',
  'öneri',
  'teşekkür',
  'arıza',
  'kurulum',
  'ışık',
  'sözleşme',
  'abonelik'
]

function vocabulary(size: number): string[] {
  const rnd = prng(7)
  const words = new Set<string>()
  while (words.size < size) {
    const n = 2 + Math.floor(rnd() * 3)
    let w = ''
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rnd() * SYLLABLES.length)]
    words.add(w)
  }
  return [...words, ...ENGLISH]
}

const VOCAB = vocabulary(3000)

export interface GeneratedCall {
  record: CallRecord
  /** Index into TOPICS; the bench's second scope holds topic 0 calls. */
  topic: number
}

/**
 * Call i of n, spread over one year in ascending time (the order a sync writes them).
 * Two calls share a second now and then, so ties by callId are exercised.
 */
export function makeCall(i: number, n: number, rnd: () => number): GeneratedCall {
  const at = START_MS + Math.floor(((i / n) * SPAN_MS) / 1000) * 1000
  const topic = Math.floor(rnd() * rnd() * TOPICS.length)
  const words: string[] = []
  const len = 18 + Math.floor(rnd() * 20)
  for (let k = 0; k < len; k++) {
    // Zipf-like: low ranks far more often.
    words.push(VOCAB[Math.floor(VOCAB.length * rnd() * rnd() * rnd())]!)
  }
  if (rnd() < 0.9) words.splice(Math.floor(rnd() * words.length), 0, COMMON_TERM)
  if (rnd() < 0.01) words.splice(Math.floor(rnd() * words.length), 0, ONE_PERCENT_TERM)
  if (rnd() < 0.0001) words.splice(Math.floor(rnd() * words.length), 0, RARE_TERM)
  const agent = 1 + Math.floor(rnd() * 50)
  const score = Math.floor(rnd() * 101)
  const d = new Date(at + 3 * 3600 * 1000).toISOString().slice(0, 19)
  return {
    topic,
    record: {
      callId: `C${String(i).padStart(8, '0')}`,
      callAt: at,
      callDate: `${d}+03:00`,
      title: `${TOPICS[topic]} ile ilgili görüşme ${agent}`,
      summary: words.join(' '),
      analysis: [
        { key: 'sentiment', friendlyName: 'Duygu', value: ['olumlu', 'olumsuz', 'nötr'][Math.floor(rnd() * 3)]! },
        { key: 'score', friendlyName: 'Skor', value: String(score) },
        { key: 'duration', friendlyName: 'Süre (sn)', value: String(30 + Math.floor(rnd() * 900)) },
        { key: 'agent', friendlyName: 'Temsilci', value: `Temsilci ${agent}` },
        { key: 'topic', friendlyName: 'Konu', value: TOPICS[topic]! },
        { key: 'resolved', friendlyName: 'Çözüldü', value: rnd() < 0.7 ? 'evet' : 'hayır' },
        { key: 'csat', friendlyName: 'Memnuniyet', value: String(1 + Math.floor(rnd() * 5)) },
        { key: 'language', friendlyName: 'Dil', value: rnd() < 0.85 ? 'tr' : 'en' },
        { key: 'silence', friendlyName: 'Sessizlik oranı', value: `0,${String(Math.floor(rnd() * 100)).padStart(2, '0')}` },
        { key: 'vip', friendlyName: 'VIP', value: rnd() < 0.0001 ? 'platin' : 'hayır' }
      ],
      extra: i % 10 === 0 ? { queue: `Q${i % 7}` } : {}
    }
  }
}
