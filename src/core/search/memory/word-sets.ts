import type { ResolvedNode } from '../../../shared/query/ast'
import { PerVersion, type DataWatch } from '../data-watch'
import { textPart, type QuerySqlContext } from '../query/query-sql'
import { keepWithin } from './kept-bytes'
import { PrefixSets, setOf, type PrefixSet } from './prefix-sets'

/**
 * A word is kept when it matches at least this share of the calls: below it its doclist is
 * short enough that reading it again costs little (a 2 % word at 1,000,000 calls: ~2 ms).
 */
export const KEPT_WORD_SHARE = 1 / 32

/**
 * Bytes of word sets kept at once (each a byte per call: 5 MB at 5,000,000 calls, so 16 of
 * them): the search's resident target at 5,000,000 calls is 1.5 GB and it peaked at
 * ~1.15 GB without them.
 */
export const WORD_SET_BYTES = 80 * 1024 * 1024

/** Word sets kept at once whatever their size (a small cache). */
const WORDS_KEPT = 32

/**
 * Common words' id sets, kept per data version as the short prefixes' are (prefix-sets.ts),
 * each under the FTS5 expression it was read with (a word, its prefix's expansions, a
 * phrase): a count, facets or match list of a query with a word in half the calls read that
 * word's whole doclist (~300,000–500,000 ids at 1,000,000 calls, most of such a count's
 * time) every time.
 * The first whole read of a word that matches at least KEPT_WORD_SHARE of the calls keeps
 * its set; every later question about the word (its count, facets, the word beside an
 * analysis term, under NOT, in a window of a first page) takes it from memory. At most
 * WORD_SET_BYTES, the least recently used dropped first. Any change to the data drops them
 * all, so a set is exact for the version it was read at.
 */
/** How long the data must stay unchanged before a count reads words' sets to keep (a sync writes every second or two). */
export const REST_MS = 10_000

export class WordSets {
  private readonly sets: PerVersion<Map<string, PrefixSet>>

  constructor(
    /** Ids below this can be calls (the largest id + 1, as the in-memory columns size it). */
    private readonly size: () => number,
    watch: DataWatch,
    private readonly budget = WORD_SET_BYTES
  ) {
    this.sets = new PerVersion(watch, () => new Map())
  }

  /**
   * Whether `offer` may keep this FTS5 expression's set: any but a short prefix alone, whose set
   * PrefixSets keeps. A word as typed is usually its prefix's expansion (`levo` is
   * `("levo" OR "levobiso" OR …)` for the data version its terms were listed at), a phrase
   * or a word in a field its own expression: the set is the expression's exact matches.
   */
  static takes(match: string): boolean {
    return !PrefixSets.takes(match)
  }

  /**
   * A whole read of the expression's ids (every id, no bounds): kept when common. Returns its
   * set when kept, else null (the caller uses the ids it has).
   */
  offer(match: string, ids: Int32Array): PrefixSet | null {
    const size = this.size()
    if (!WordSets.takes(match) || ids.length < size * KEPT_WORD_SHARE || size > this.budget) return null
    const kept = this.sets.get()
    const made = setOf(ids, size)
    keepWithin(kept, match, made, (s) => s.bits.length, this.budget, WORDS_KEPT)
    return made
  }

  /** The set when it is kept already (a first page or a ranged count does not read a whole doclist for it). */
  peek(match: string): PrefixSet | null {
    if (!WordSets.takes(match)) return null
    const set = this.sets.get().get(match)
    return set !== undefined && set.bits.length === this.size() ? set : null
  }

  /** No write for REST_MS since the sets were made for this data version (data-watch.ts's atRest). */
  atRest(): boolean {
    return this.sets.atRest(REST_MS)
  }

  /** The words kept now (tests and explain). */
  keptWords(): string[] {
    return [...this.sets.get().keys()]
  }
}

/**
 * The words (text terms: a word, a prefix's expansions, a phrase) of a text-only AND or OR
 * (an AND's items may be negated words), as their FTS5 expressions in tree order; null when
 * the node is anything else (an analysis term, a short prefix, a lone word). Such a node is
 * one FTS5 expression, which reads every word's doclists in full each time; with the words'
 * sets kept it is byte operations instead.
 */
export function wordsOf(n: ResolvedNode, ctx: QuerySqlContext): string[] | null {
  if (n.kind !== 'and' && n.kind !== 'or') return null
  const part = textPart(n, ctx)
  if (!('fts' in part)) return null
  const out: string[] = []
  const leaf = (m: ResolvedNode): boolean => {
    const p = textPart(m, ctx)
    if (m.kind !== 'text' || !('fts' in p) || !WordSets.takes(p.fts)) return false
    out.push(p.fts)
    return true
  }
  for (const item of n.items) {
    if (leaf(item)) continue
    if (n.kind === 'and' && item.kind === 'not' && leaf(item.item)) continue
    const inner = wordsOf(item, ctx)
    if (inner === null) return null
    out.push(...inner)
  }
  return out
}
