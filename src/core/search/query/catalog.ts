import { AnalysisKeyInfo } from '../../../shared/domain'
import { CallTypeNames, type AnalysisKeyRow, type CatalogReads, type DataReads, type HeldWindow, type ScopeRef } from '../../cache'
import type { CallType } from '../../../shared/domain'
import { prefixesOf, type QueryCatalog } from './compile'
import { PerVersion, type DataWatch } from '../data-watch'

/** A key is numeric when at least this share of its values parse as numbers. */
const NUMERIC_SHARE = 0.95
/** A prefix is expanded into at most this many terms; more, and it stays a prefix (narrow expansion, as before). */
export const MAX_EXPANSION = 8
/**
 * The same with wide expansion (the default). A prefix left as typed ("mes"*) makes FTS5
 * merge the whole doclist of every term under it, whatever rowid bounds the query has: a
 * first page's window of 5,000 ids at 5,000,000 calls took 90–130 ms of CPU for "mes" (23
 * terms), against 1 ms for the OR of its terms; read whole, 270 ms against 180.
 */
export const WIDE_EXPANSION = 64
/** Expansions kept per data version before they are dropped (typing makes many). */
const MAX_EXPANSIONS_KEPT = 1000

interface Tables {
  scopes: ScopeRef[]
  /** Ids of every (key, friendly name) pair of a key, ascending. */
  keyIds: Map<string, number[]>
  /** Keys with items, for the UI and facets. */
  keys: AnalysisKeyInfo[]
  /** The call type catalog, with any name a scope was synced with that it lacks. */
  typeNames: CallTypeNames
  /** Prefix lengths the index keeps prefix indexes for: such a prefix is one doclist. */
  indexedPrefixes: Set<number>
  /** Those are kept by the short-prefix index (schema 17 on), not by calls_fts. */
  shortPrefixIndex: boolean
  /** The team cache's window the cache holds (null: everything it has). */
  window: HeldWindow | null
}

/**
 * The catalog plus the names scopes were synced with that it does not hold (a sync cut off
 * before it learnt them, an entry deleted in Settings): a scope's own name always finds it.
 */
export function typeNamesOf(catalog: readonly CallType[], scopes: readonly ScopeRef[]): CallTypeNames {
  const names = new CallTypeNames(catalog)
  const extra: CallType[] = []
  for (const s of scopes) {
    for (const n of s.filters.callTypes) {
      if (names.canonical(n) === null && !extra.some((e) => e.value === n)) extra.push({ value: n, description: '' })
    }
  }
  return extra.length === 0 ? names : new CallTypeNames([...catalog, ...extra])
}

/** Keys with items, friendly name from the pair with most items, numeric by share of items. */
export function keyInfos(rows: readonly AnalysisKeyRow[]): AnalysisKeyInfo[] {
  const out = new Map<string, { info: AnalysisKeyInfo; numeric: number }>()
  for (const r of rows) {
    if (r.items <= 0) continue
    const cur = out.get(r.key)
    if (!cur)
      out.set(r.key, { info: { key: r.key, friendlyName: r.friendlyName, numeric: false, calls: r.items }, numeric: r.numericItems })
    else {
      cur.info.calls += r.items
      cur.numeric += r.numericItems
    }
  }
  return [...out.values()].map(({ info, numeric }) => AnalysisKeyInfo.parse({ ...info, numeric: numeric >= NUMERIC_SHARE * info.calls }))
}

/**
 * What queries are compiled against, read once per data version: the scopes, the analysis
 * keys, the number of calls, and the terms under the prefixes typed so far.
 */
export class SearchCatalog {
  private readonly tables: PerVersion<Tables>
  private readonly calls: PerVersion<number>
  private readonly expansions: PerVersion<Map<string, string[] | null>>

  constructor(
    private readonly reads: CatalogReads,
    private readonly data: DataReads,
    watch: DataWatch,
    /** Where prefixes expand from: the kept term list (where the cache has it), or the index itself. */
    private readonly terms: 'list' | 'index' = 'list',
    /** The most terms a prefix expands into: WIDE_EXPANSION, or MAX_EXPANSION as before. */
    private readonly maxExpansion = WIDE_EXPANSION
  ) {
    this.tables = new PerVersion(watch, () => {
      const rows = reads.analysisKeys()
      const keyIds = new Map<string, number[]>()
      for (const r of rows) keyIds.set(r.key, [...(keyIds.get(r.key) ?? []), Math.trunc(r.id)])
      for (const ids of keyIds.values()) ids.sort((a, b) => a - b)
      const scopes = reads.scopes()
      return {
        scopes,
        keyIds,
        keys: keyInfos(rows),
        typeNames: typeNamesOf(reads.callTypes(), scopes),
        indexedPrefixes: new Set(reads.prefixIndexLengths()),
        shortPrefixIndex: reads.hasShortPrefixIndex(),
        window: reads.heldWindow()
      }
    })
    this.calls = new PerVersion(watch, () => data.maxCallId())
    this.expansions = new PerVersion(watch, () => new Map())
  }

  /** The number of calls (the largest id: rows are only ever deleted all at once). */
  totalCalls(): number {
    return this.calls.get()
  }

  analysisKeys(): AnalysisKeyInfo[] {
    return this.tables.get().keys
  }

  keyInfo(key: string): AnalysisKeyInfo | undefined {
    return this.tables.get().keys.find((k) => k.key === key)
  }

  keyIds(key: string): readonly number[] {
    return this.tables.get().keyIds.get(key) ?? []
  }

  scopes(): readonly ScopeRef[] {
    return this.tables.get().scopes
  }

  typeNames(): CallTypeNames {
    return this.tables.get().typeNames
  }

  heldWindow(): HeldWindow | null {
    return this.tables.get().window
  }

  /**
   * The terms under a prefix when there are at most `limit` (at most `maxExpansion`), else null. Read from the
   * kept term list (a B-tree range: microseconds); a term in it that no call holds any more
   * matches nothing. Kept per data version all the same: on a cache without the list,
   * fts5vocab computes each listed term's document count, i.e. reads its whole doclist (~25 ms
   * for a word in 90% of 1,000,000 calls), and typing repeats prefixes.
   */
  expand(prefix: string, limit = this.maxExpansion): string[] | null {
    const kept = this.expansions.get()
    let terms = kept.get(prefix)
    if (terms === undefined) {
      const found = this.reads.prefixTerms(prefix, this.maxExpansion + 1, this.terms)
      terms = found.length > this.maxExpansion ? null : found
      if (kept.size > MAX_EXPANSIONS_KEPT) kept.clear()
      kept.set(prefix, terms)
    }
    return terms !== null && terms.length <= limit ? terms : null
  }

  /**
   * Everything compileQuery needs for this text: the catalog, and the text's prefixes
   * expanded. `byRelevance`: up to MAX_EXPANSION terms only, as before wide expansion: bm25
   * scores each phrase of the MATCH on its own, so a prefix ranks otherwise than the OR of
   * its terms, and a relevance order stays the one the prefix had.
   */
  forText(text: string, byRelevance = false): QueryCatalog {
    const { scopes, keyIds, keys, typeNames, indexedPrefixes, shortPrefixIndex } = this.tables.get()
    // A prefix the index keeps a prefix index for ("i", "ka" from schema 7) is read as one
    // doclist: it stays a prefix, cheap to probe, and needs no expansion.
    const prefixes = prefixesOf(text, keys).filter((p) => !indexedPrefixes.has([...p].length))
    return {
      scopes,
      keyIds,
      keys,
      typeNames,
      expansions: new Map(prefixes.map((p) => [p, this.expand(p, byRelevance ? MAX_EXPANSION : this.maxExpansion)])),
      shortPrefixIndex,
      reviewVersion: this.data.reviewVersion()
    }
  }
}
