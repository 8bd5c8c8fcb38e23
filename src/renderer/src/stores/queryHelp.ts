import { defineStore } from 'pinia'
import { ref, shallowRef } from 'vue'
import type { AnalysisKeyInfo, SearchQuery } from '../../../shared/domain'
import type { KnownValues } from '../../../shared/query'
import { call } from '../api'
import { buildQuery, emptyFilters } from '../lib/query'
import { categoryKey, numberKey, queryExamples, type ExampleMaterial, type QueryExample } from '../lib/queryExamples'
import { useAppStore } from './app'

/** Keys whose values are read to choose the help's example key (the few most common). */
const CANDIDATE_KEYS = 3
/** Newest calls whose titles give the help's words. */
const TITLE_ROWS = 20

/**
 * The calls the search bar shows with its filters reset (answered calls): examples and known
 * values are about the data, not about whatever the filter bar holds now.
 */
function allCalls(): SearchQuery {
  return buildQuery(emptyFilters())
}

/** A key's values as read, with their counts and, for a numeric key, its range. */
interface ReadValues extends KnownValues {
  counts: number[]
  range: { min: number; max: number } | null
}

/**
 * The query help and value checks, built from the account's own data: its keys with their
 * friendly names and call counts, a few values with counts, a numeric key's range, words of
 * the newest titles. Read again when the account or its last sync changes.
 */
export const useQueryHelpStore = defineStore('queryHelp', () => {
  const keys = ref<AnalysisKeyInfo[]>([])
  const examples = shallowRef<QueryExample[]>([])
  const category = shallowRef<ExampleMaterial['category']>(null)
  /** Values per key, as far as read; a key is read once per load (knownValues). */
  const known = ref<Record<string, ReadValues>>({})
  const loading = ref(false)
  /** The help was opened from the search bar: its search language comes first. */
  const languageFirst = ref(false)
  let loadedFor: string | null = null
  const pending = new Map<string, Promise<ReadValues>>()

  function dataKey(): string {
    const app = useAppStore()
    return `${app.account?.id ?? ''}|${app.cache?.lastSyncAt ?? ''}|${app.cache?.calls ?? ''}`
  }

  async function valuesOf(key: string): Promise<ReadValues> {
    const have = known.value[key]
    if (have) return have
    let p = pending.get(key)
    if (!p) {
      p = call('search.values', { query: allCalls(), key }).then((v) => {
        const counted = v.values.reduce((n, x) => n + x.count, 0)
        const entry: ReadValues = {
          values: v.values.map((x) => x.value),
          complete: !v.numeric && counted === v.items && v.items > 0,
          counts: v.values.map((x) => x.count),
          range: v.range
        }
        known.value = { ...known.value, [key]: entry }
        return entry
      })
      pending.set(key, p)
      p.finally(() => pending.delete(key)).catch(() => undefined)
    }
    return p
  }

  /** Reads the material when the data changed since the last read. */
  async function load(): Promise<void> {
    const now = dataKey()
    if (loadedFor === now || loading.value) return
    loading.value = true
    try {
      known.value = {}
      const list = await call('search.analysisKeys', {})
      keys.value = list
      const candidates = [...list]
        .filter((k) => !k.numeric)
        .sort((a, b) => b.calls - a.calls)
        .slice(0, CANDIDATE_KEYS)
      const read = await Promise.all(candidates.map(async (k) => ({ k, v: await valuesOf(k.key) })))
      // The key with the fewest values, all of them known: its examples read best.
      const best = read.filter((r) => r.v.complete && r.v.values.length >= 2).sort((a, b) => a.v.values.length - b.v.values.length)[0]
      const catKey = best?.k ?? categoryKey(list)
      const catValues = catKey ? await valuesOf(catKey.key) : null
      const numKey = numberKey(list)
      const num = numKey ? await valuesOf(numKey.key) : null
      const page = await call('search.page', { query: allCalls(), offset: 0, limit: TITLE_ROWS })
      category.value =
        catKey && catValues
          ? { key: catKey, values: catValues.values.map((value, i) => ({ value, count: catValues.counts[i] ?? 0 })) }
          : null
      examples.value = queryExamples({
        keys: list,
        category: category.value,
        number: numKey && num?.range ? { key: numKey, min: num.range.min, max: num.range.max } : null,
        titles: page.rows.map((r) => r.title),
        callId: page.rows[0]?.callId ?? null
      })
      loadedFor = now
    } finally {
      loading.value = false
    }
  }

  return { keys, examples, category, known, loading, languageFirst, load, valuesOf }
})
