import { prng as rnd } from '../../../support/prng'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { openCache, type CallCache, type ScopeFilters } from '../../../../src/core/cache'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import type { CallRecord } from '../../../../src/shared/domain'

export const SCOPES: Record<string, ScopeFilters> = {
  fatura: { callTypes: ['Fatura'], direction: 1, results: 'answered', hasNewRequest: null, includeAnalysis: true },
  mixed: { callTypes: ['Fatura', 'Kargo'], direction: 2, results: [1, 2], hasNewRequest: true, includeAnalysis: true },
  everything: { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true },
  kargo: { callTypes: ['Kargo'], direction: null, results: [3], hasNewRequest: false, includeAnalysis: false }
}

export { rnd }

const WORDS = [
  'fatura',
  'faturası',
  'faturalar',
  'iade',
  'kargo',
  'gecikti',
  'şikayet',
  'İPTAL',
  'ışık',
  'İSTANBUL',
  'müşteri',
  'order',
  'late',
  'refund',
  'modem',
  'arıza',
  'teşekkür',
  'çağrı',
  'görüşme',
  'ödeme'
]

export const T0 = Date.UTC(2025, 2, 1)

export interface Fixture {
  dir: string
  cache: CallCache
  records: CallRecord[]
  /** Scope keys that returned each call. */
  scopesOf: Map<string, Set<string>>
  close(): void
}

/**
 * Calls with random ids (so id order is not date order), several per second now and then
 * (ties), over 40 days across a DST change, written through several scopes. `timeOrdered`:
 * the calls are written in time order, every call first through the scope that holds them
 * all, so ids follow dates as a sync writes them (the first page's window is then a narrow
 * id span).
 */
/** Agents of the fixture with extra fields: Turkish letters, so a typed name is compared folded. */
export const AGENTS = ['Ayşe Yılmaz', 'Hakan Çınar', 'İpek Işık']

export function buildFixture(n: number, seed = 1, options: { timeOrdered?: boolean; extra?: boolean } = {}): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'callsight-search-'))
  const cache = openCache(join(dir, 'cache.db'))
  const r = rnd(seed)
  const records: CallRecord[] = []
  for (let i = 0; i < n; i++) {
    const words: string[] = []
    const len = 3 + Math.floor(r() * 8)
    for (let k = 0; k < len; k++) words.push(WORDS[Math.floor(r() * r() * WORDS.length)]!)
    const callAt = T0 + Math.floor(r() * 40 * 24 * 3600) * 1000
    const tie = i > 0 && r() < 0.1 ? records[i - 1]!.callAt : callAt
    const score = Math.floor(r() * 101)
    records.push({
      callId: `id-${Math.floor(r() * 1e9).toString(36)}-${i}`,
      callAt: tie,
      callDate: new Date(tie).toISOString(),
      title: `${WORDS[Math.floor(r() * WORDS.length)]} ${i}`,
      summary: words.join(' '),
      analysis: [
        { key: 'sentiment', friendlyName: 'Duygu', value: ['olumlu', 'olumsuz', 'nötr'][Math.floor(r() * 3)]! },
        { key: 'score', friendlyName: 'Skor', value: String(score) },
        { key: 'agent', friendlyName: 'Temsilci', value: `Temsilci ${1 + Math.floor(r() * 5)}` }
      ],
      // Derived from i, not drawn: the other fields' draws stay those of the fixture without extras.
      extra: options.extra
        ? { agentName: AGENTS[i % AGENTS.length]!, durationSeconds: (i * 37) % 900, language: i % 2 ? 'tr-TR' : 'en-US' }
        : {}
    })
  }
  if (options.timeOrdered) records.sort((a, b) => a.callAt - b.callAt || (a.callId < b.callId ? -1 : 1))
  const scopesOf = new Map<string, Set<string>>(records.map((rec) => [rec.callId, new Set<string>()]))
  const scopes = Object.entries(SCOPES)
  if (options.timeOrdered) scopes.sort(([a], [b]) => Number(b === 'everything') - Number(a === 'everything'))
  for (const [key, filters] of scopes) {
    cache.ensureScope(key, filters)
    const members = records.filter(() => key === 'everything' || r() < 0.3)
    for (let i = 0; i < members.length; i += 100) {
      const page = members.slice(i, i + 100)
      cache.writePage({
        scopeKey: key,
        records: filters.includeAnalysis ? page : page.map((p) => ({ ...p, analysis: [] })),
        includeAnalysis: filters.includeAnalysis,
        checkpoint: { i }
      })
      for (const p of page) scopesOf.get(p.callId)!.add(key)
    }
  }
  cache.optimizeIndex()
  return {
    dir,
    cache,
    records,
    scopesOf,
    close() {
      cache.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}

/** A fixture searched twice, as it is and without the bitmap evaluator (SQL only), for the file's tests. */
export function searchedBothWays(n: number, seed: number): { fx: Fixture; ours: LocalSearch; sqlOnly: LocalSearch } {
  const both = {} as { fx: Fixture; ours: LocalSearch; sqlOnly: LocalSearch }
  beforeAll(() => {
    both.fx = buildFixture(n, seed)
    both.ours = createSearch(both.fx.cache)
    both.sqlOnly = createSearch(both.fx.cache, { bitmaps: false })
  })
  afterAll(() => both.fx.close())
  return both
}
