import type { SearchPage } from '../../../shared/domain'
import type { IndexTotals, RankReads, SearchReader } from '../../cache'
import type { CompiledQuery } from '../query/compile'
import { PerVersion, type DataWatch } from '../data-watch'
import { countOf, idsOf } from './bitmap-eval'
import {
  ascending,
  B,
  COLUMN_WEIGHT,
  K1,
  rankMatches,
  sortedRepeats,
  topByRank,
  type ScoredTerm,
  type SortedRepeats
} from './relevance-topk'

/**
 * Relevance over a date range ranked in memory, in FTS5's bm25 order. FTS5's bm25 first
 * counts, for each phrase of the query, the rows of the whole index that hold it
 * (xQueryPhrase: a pass over the phrase's doclist, ~20 ms for a 90 % word at 1,000,000
 * calls), then scores each candidate from its instances and its length (a docsize lookup
 * each). Those counts only move when the data does, so they are kept per data version here,
 * and the range's candidates are scored from a range read of the docsize table. The score is
 * bm25's own arithmetic, term by term in the same order (the same doubles, ties by id as the
 * SQL orders them), so the order is the SQL's (test: relevance-rank.test.ts against SQL bm25).
 *
 * Taken only where that is exact and cheap: FTS5's default rank (bm25, k1 1.2, b 0.75, every
 * column weight 1), a MATCH of plain words (no phrase of several words, no prefix left
 * unexpanded, no column filter), a date range whose ids span at most MAX_SPAN. A word's
 * frequency in a row is 1 unless the row holds it more than once; the rows that do are read
 * once per data version from an instance vocabulary (only for words the vocabulary says
 * repeat somewhere). Anything else: null, and the SQL path ranks.
 */

export { COLUMN_WEIGHT } from './relevance-topk'
/** A range whose ids spread wider is left to SQL (a docsize read and a score per id in it). */
export const MAX_SPAN = 250_000

interface TermStats {
  /** bm25's idf of the term (log of the rows without it over the rows with it, floored at 1e-6). */
  idf: number
  /** Rows holding the term more than once: the instance count. */
  repeats: Map<number, number>
  /** The same, ascending by id (the pruned ranking walks them with the matches); made when first asked for. */
  sorted?: SortedRepeats
}

interface Kept {
  totals: IndexTotals
  /** null: the term's numbers disagree (the vocabulary and the index), not ranked here. */
  terms: Map<string, TermStats | null>
  /** Each row's token count (all columns) by chunk of SIZE_CHUNK ids, −1 where no row; read as ranges ask for them. */
  sizes: Map<number, Int32Array>
}

/**
 * Ids per chunk of kept row sizes. A week's range at 1,000,000 calls spans ~19,000 ids: its
 * first ranking reads two or three chunks, every later one over the same weeks reads none
 * (the read was most of a ranking's time). All of them at 5,000,000 calls: 20 MB.
 */
export const SIZE_CHUNK = 1 << 14

const WORD = /^"([^"\s*]+)"$/

type Expr = { word: string } | { op: 'AND' | 'OR' | 'NOT'; kids: Expr[] }

/** FTS5's expression grammar over the tokens compile.ts writes: OR loosest, then AND (or none), then NOT. */
function parse(tokens: string[]): Expr | null {
  let i = 0
  const binary = (op: 'AND' | 'OR' | 'NOT', next: () => Expr | null, implicit = false): Expr | null => {
    const first = next()
    if (first === null) return null
    const kids = [first]
    for (;;) {
      const t = tokens[i]
      if (t === op) i++
      else if (!(implicit && t !== undefined && t !== ')' && t !== 'OR' && t !== 'NOT')) break
      const k = next()
      if (k === null) return null
      kids.push(k)
    }
    return kids.length === 1 ? first : { op, kids }
  }
  const primary = (): Expr | null => {
    const t = tokens[i++]
    if (t === '(') {
      const e = or()
      return tokens[i++] === ')' ? e : null
    }
    const m = t === undefined ? null : WORD.exec(t)
    return m === null ? null : { word: m[1]! }
  }
  const not = (): Expr | null => binary('NOT', primary)
  const and = (): Expr | null => binary('AND', not, true)
  const or = (): Expr | null => binary('OR', and)
  const e = or()
  return i === tokens.length ? e : null
}

const isWord = (e: Expr): boolean => 'word' in e
/** A word or an OR of words: a row that matches holds exactly the words of it that it contains. */
const simple = (e: Expr): boolean => isWord(e) || ('op' in e && e.op === 'OR' && e.kids.every(isWord))
/** A NOT whose excluded side is simple (matching rows hold none of its words). */
const notOf = (e: Expr): boolean => 'op' in e && e.op === 'NOT' && e.kids.slice(1).every(simple) && conj(e.kids[0]!)
const conj = (e: Expr): boolean => simple(e) || notOf(e) || ('op' in e && e.op === 'AND' && e.kids.every((k) => simple(k) || notOf(k)))

/**
 * The words of a MATCH expression in the order FTS5 numbers its phrases; null unless it is
 * plain words in a shape where a matching row's instances of each word are all its
 * instances: words ANDed, ORs of words, and NOT of a word or an OR of words. Deeper nesting
 * (an AND under an OR) is left to SQL: FTS5 then reports a word's instances only when its
 * branch is positioned on the row, which a row holding the word need not be.
 */
export function matchWords(match: string): string[] | null {
  const tokens = match.match(/\(|\)|"[^"]*"\*?|[^\s()]+/g) ?? []
  const words: string[] = []
  for (const t of tokens) {
    if (t === '(' || t === ')' || t === 'AND' || t === 'OR' || t === 'NOT') continue
    const m = WORD.exec(t)
    if (m === null) return null
    words.push(m[1]!)
  }
  const e = parse(tokens)
  return words.length > 0 && e !== null && conj(e) ? words : null
}

export class RelevanceRanker {
  private readonly kept: PerVersion<Kept>

  /**
   * `keepSizes`: the rows' sizes kept per data version by chunk (default); false: read for
   * each ranking's span, as before (the bench's baseline). `sizeChunk`: SIZE_CHUNK (tests move
   * it). `pruned`: the matches scored from typed arrays and only the page's share sorted
   * (relevance-topk.ts, default); false: a Map lookup per match and every rank sorted, as
   * before. `spanOf`: the range's id span from memory (undefined: not in memory, read from
   * the date index), with `pruned` only.
   */
  constructor(
    private readonly reads: RankReads,
    watch: DataWatch,
    private readonly keepSizes = true,
    private readonly sizeChunk = SIZE_CHUNK,
    private readonly pruned = true,
    private readonly spanOf: (from: number | null, to: number | null) => [number, number] | null | undefined = () => undefined
  ) {
    this.kept = new PerVersion(watch, () => ({ totals: reads.totals(), terms: new Map(), sizes: new Map() }))
  }

  /** Row sizes for ids lo..hi (−1: no row), from the kept chunks, reading those not kept. */
  private sizesIn(kept: Kept, lo: number, hi: number): Int32Array {
    const sizes = new Int32Array(hi - lo + 1).fill(-1)
    const put = (from: number, ds: { ids: Int32Array | null; sizes: Int32Array }, into: Int32Array, base: number): void => {
      if (ds.ids === null) into.set(ds.sizes, from - base)
      else for (let k = 0; k < ds.ids.length; k++) into[ds.ids[k]! - base] = ds.sizes[k]!
    }
    if (!this.keepSizes) {
      put(lo, this.reads.docSizes(lo, hi, kept.totals.columns), sizes, lo)
      return sizes
    }
    const C = this.sizeChunk
    for (let c = Math.floor(lo / C); c * C <= hi; c++) {
      let chunk = kept.sizes.get(c)
      if (chunk === undefined) {
        const first = c * C
        chunk = new Int32Array(C).fill(-1)
        put(first, this.reads.docSizes(first, first + C - 1, kept.totals.columns), chunk, first)
        kept.sizes.set(c, chunk)
      }
      const a = Math.max(lo, c * C)
      const b = Math.min(hi, (c + 1) * C - 1)
      sizes.set(chunk.subarray(a - c * C, b - c * C + 1), a - lo)
    }
    return sizes
  }

  private term(kept: Kept, word: string): TermStats | null {
    let s = kept.terms.get(word)
    if (s !== undefined) return s
    const { docs, vocabDocs, instances } = this.reads.termDocs(word)
    s = null
    if (vocabDocs === docs) {
      const repeats = instances > docs ? this.reads.repeats(word) : new Map<number, number>()
      let sum = docs - repeats.size
      for (const n of repeats.values()) sum += n
      if (sum === instances) {
        // As fts5Bm25GetData: log((nRow - nHit + 0.5) / (nHit + 0.5)), with C's log.
        let idf = this.reads.ln((kept.totals.rows - docs + 0.5) / (docs + 0.5))
        if (idf <= 0.0) idf = 1e-6
        s = { idf, repeats }
      }
    }
    kept.terms.set(word, s)
    return s
  }

  /**
   * The ids of the query's matches in the range, in bm25 order (rank, then id), with their
   * ranks, the first `want` of them; null when this ranking does not apply. `evaluate`: the
   * query's exact matches over an id span (the bitmap evaluator).
   */
  rank(
    q: CompiledQuery,
    matches: Pick<SearchReader['matches'], 'ftsIds'>,
    evaluate: (within: readonly [number, number]) => { bits: Uint8Array; lo: number },
    want = Infinity
  ): { ids: Int32Array; ranks: Float64Array } | null {
    if (q.order !== 'relevance' || q.match === null || q.costlyProbe || (q.from === null && q.to === null)) return null
    const words = matchWords(q.match)
    if (words === null) return null
    const kept = this.kept.get()
    if (!kept.totals.defaultRank || kept.totals.rows === 0) return null
    const stats: TermStats[] = []
    for (const w of words) {
      const s = this.term(kept, w)
      if (s === null) return null
      stats.push(s)
    }
    const remembered = this.pruned ? this.spanOf(q.from, q.to) : undefined
    const span = remembered === undefined ? this.reads.idSpan(q.from, q.to) : remembered
    if (span === null) return { ids: new Int32Array(0), ranks: new Float64Array(0) }
    const [lo, hi] = span
    if (hi - lo + 1 > MAX_SPAN) return null
    const { bits, lo: first } = evaluate(span)
    if (this.pruned) return this.pruneRank(kept, words, stats, matches, span, idsOf(bits, countOf(bits), first), want)
    // Which candidates hold each word: every one when the MATCH is one word.
    const holds =
      words.length === 1
        ? null
        : words.map((w) => {
            const m = new Uint8Array(hi - lo + 1)
            const ids = matches.ftsIds(`"${w}"`, span)
            for (let i = 0; i < ids.length; i++) if (ids[i]! >= lo && ids[i]! <= hi) m[ids[i]! - lo] = 1
            return m
          })
    const sizes = this.sizesIn(kept, lo, hi)
    const avgdl = kept.totals.tokens / kept.totals.rows
    let n = 0
    for (let i = 0; i < bits.length; i++) n += bits[i]!
    const ids = new Int32Array(n)
    const ranks = new Float64Array(n)
    let k = 0
    for (let i = 0; i < bits.length; i++) {
      if (bits[i] !== 1) continue
      const id = first + i
      const D = sizes[id - lo]!
      if (D < 0) return null // a match without its sizes: the index and this read disagree
      // fts5Bm25Function, operation for operation.
      let score = 0.0
      for (let t = 0; t < stats.length; t++) {
        const s = stats[t]!
        const held = holds === null || holds[t]![id - lo] === 1
        const f = held ? (s.repeats.get(id) ?? 1) * COLUMN_WEIGHT : 0
        score += s.idf * ((f * (K1 + 1.0)) / (f + K1 * (1 - B + (B * D) / avgdl)))
      }
      ids[k] = id
      ranks[k] = -1.0 * score
      k++
    }
    return inRankOrder(ids, ranks, want)
  }

  /** rank()'s scoring and page with `pruned` (relevance-topk.ts): the same ids and ranks. */
  private pruneRank(
    kept: Kept,
    words: string[],
    stats: TermStats[],
    matches: Pick<SearchReader['matches'], 'ftsIds'>,
    span: readonly [number, number],
    ids: Int32Array,
    want: number
  ): { ids: Int32Array; ranks: Float64Array } | null {
    const [lo, hi] = span
    const terms: ScoredTerm[] = stats.map((s, t) => ({
      idf: s.idf,
      repeats: (s.sorted ??= sortedRepeats(s.repeats)),
      holders: words.length === 1 ? null : ascending(matches.ftsIds(`"${words[t]!}"`, span))
    }))
    const ranks = rankMatches(ids, terms, this.sizesIn(kept, lo, hi), lo, kept.totals.tokens / kept.totals.rows)
    if (ranks === null) return null
    return want >= ids.length ? inRankOrder(ids, ranks, want) : topByRank(ids, ranks, want)
  }

  /** A page of the ranking, its rows read by id; null when the ranking does not apply. */
  page(
    q: CompiledQuery,
    reader: SearchReader,
    evaluate: (within: readonly [number, number]) => { bits: Uint8Array; lo: number },
    offset: number,
    limit: number
  ): SearchPage | null {
    const r = this.rank(q, reader.matches, evaluate, offset + limit)
    if (r === null) return null
    const ids = Array.from(r.ids.subarray(offset, offset + limit))
    return { offset, rows: ids.length === 0 ? [] : reader.rows.byIds(ids) }
  }
}

/**
 * The first `want` of the candidates (ids ascending) by (rank, id), as the SQL orders them,
 * with their ranks. Only the page's share is sorted with a comparator (17,000 indices sorted
 * so took 6–15 ms): the want-th smallest rank is found by a native sort of the ranks, then the
 * ranks below it and, in id order (the candidates' order), enough of those equal to it.
 */
export function inRankOrder(ids: Int32Array, ranks: Float64Array, want: number): { ids: Int32Array; ranks: Float64Array } {
  const k = Math.min(want, ids.length)
  if (k === 0) return { ids: new Int32Array(0), ranks: new Float64Array(0) }
  const threshold = Float64Array.from(ranks).sort()[k - 1]!
  let ties = k
  for (let i = 0; i < ranks.length; i++) if (ranks[i]! < threshold) ties--
  const picked: number[] = []
  for (let i = 0; i < ranks.length; i++) {
    const r = ranks[i]!
    if (r < threshold) picked.push(i)
    else if (r === threshold && ties > 0) {
      picked.push(i)
      ties--
    }
  }
  picked.sort((a, b) => ranks[a]! - ranks[b]! || ids[a]! - ids[b]!)
  return { ids: Int32Array.from(picked, (i) => ids[i]!), ranks: Float64Array.from(picked, (i) => ranks[i]!) }
}
