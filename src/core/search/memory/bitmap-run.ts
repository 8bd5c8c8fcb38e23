import type { Bound, ResolvedNode } from '../../../shared/query/ast'
import { foldText } from '../../../shared/text/fold'
import type { CallSpan } from '../../cache'
import type { CallColumns, ValueColumn } from './columns'
import type { PrefixSet } from './prefix-sets'
import { andInto, andNotInto, notWithin, orInto } from './byte-ops'
import type { TermSets } from './term-sets'
import { wordsOf } from './word-sets'
import { ftsAnd, ftsOr, shortSplit, splitAnd, textPart, type QuerySqlContext, type ShortSplit } from '../query/query-sql'
import { step } from '../../../shared/query/work'

/**
 * One evaluation of a query's tree over a span of ids (BitmapEvaluator in bitmap-eval.ts makes
 * it): text runs as FTS5 expressions, analysis terms as passes over the in-memory columns,
 * AND, OR and NOT as byte operations.
 */

/** What the evaluator reads from SQLite. */
export interface BitmapReads {
  /** The calls any of these scopes returned. */
  membersOf(scopeIds: readonly number[]): Int32Array
  /** The row ids an FTS5 expression matches, within [lo, hi] when given. */
  ftsIds(match: string, bounds: readonly [number, number] | null): Int32Array
  /** The ids of the calls with call_at in [from, to). */
  idsInTime(from: number, to: number): Int32Array
  /** The quarter hours of the calls lo..hi (a span asked about before the quarters are kept). */
  quartersIn(span: CallSpan): { ids: Int32Array; quarters: Int32Array }
  /** The calls among lo..hi any of these scopes returned. */
  membersIn(scopeIds: readonly number[], span: CallSpan): Int32Array
}

const foldedDicts = new WeakMap<ValueColumn, string[]>()

/** The column's dictionary folded as equals compares, extended as the column grows. */
function foldedDict(col: ValueColumn): string[] {
  let f = foldedDicts.get(col)
  if (!f) foldedDicts.set(col, (f = []))
  for (let i = f.length; i < col.dict.length; i++) f.push(foldText(col.dict[i]!))
  return f
}

/**
 * How an evaluation uses kept id sets (a short prefix's, a common word's): `set` gives the
 * set of an FTS5 expression (a short prefix's read whole now when the evaluation may, a word's
 * when kept), null when it reads the expression itself; `kept` only when already kept. `words`: an AND or OR of plain
 * words is taken word by word from their sets ('read': each word's set read whole and kept
 * when common; 'kept': only when every word's set is kept, else one FTS5 expression) or
 * always as one FTS5 expression ('off').
 */
export interface KeptSets {
  set: (match: string) => PrefixSet | null
  /** Where a common expression's set may be kept: the expression is read whole (no bounds) and offered. */
  offer: ((match: string, ids: Int32Array) => void) | null
  kept: (match: string) => PrefixSet | null
  words: 'read' | 'kept' | 'off'
}

/** One evaluation: the tree's nodes as byte sets over ids [0, size). */
export class Run {
  constructor(
    private readonly reads: BitmapReads,
    private readonly columns: CallColumns,
    private readonly ctx: QuerySqlContext,
    /** NOT is taken within these calls (the range and scopes), which bounds the result anyway. */
    private readonly universe: Uint8Array,
    private readonly bounds: readonly [number, number] | null,
    /** Every set below holds ids lo..lo + size - 1, id at [id - lo]. */
    private readonly lo: number,
    private readonly size: number,
    /** Ids below this can be calls (the largest id + 1). */
    private readonly ids: number,
    private readonly sets: KeptSets,
    /** Asked about a window of ids only: an analysis key's column not kept yet is read for the window alone. */
    private readonly window: boolean,
    /** Where analysis terms' sets over every id are kept (term-sets.ts); null: each made again. */
    private readonly terms: TermSets | null = null
  ) {}

  /**
   * An analysis term's set: from the kept term sets when this run covers every id (a count,
   * facets, a match list), a copy unless `shared` (the caller only reads it); else made.
   */
  private term(key: string, make: () => Uint8Array, shared: boolean): Uint8Array {
    if (this.terms === null || this.window || this.lo !== 0 || this.size !== this.ids) return make()
    const kept = this.terms.get(key, this.size, make)
    return shared ? kept : kept.slice()
  }

  private column(keyIds: readonly number[], numeric: boolean): ValueColumn {
    if (!this.window) return this.columns.values(keyIds, numeric)
    return this.columns.valuesWithin(keyIds, numeric, { lo: this.lo, hi: this.lo + this.size - 1 })
  }

  private fts(match: string, shared = false): Uint8Array {
    // A copy unless `shared`: the callers below change their sets in place, and a fresh 5 MB
    // array at 5,000,000 calls costs its pages' first touch. Ids outside `bounds` may be set;
    // the result is cut by the base (range and scopes), which is 0 outside them.
    const { lo, size } = this
    const kept = this.sets.set(match)
    if (kept !== null && kept.bits.length === this.ids) return shared ? kept.bits.subarray(lo, lo + size) : kept.bits.slice(lo, lo + size)
    const out = new Uint8Array(size)
    const offer = this.sets.offer
    const ids = this.reads.ftsIds(match, offer === null ? this.bounds : null)
    offer?.(match, ids)
    for (let i = 0; i < ids.length; i++) {
      const k = ids[i]! - lo
      if (k >= 0 && k < size) out[k] = 1
    }
    return out
  }

  private split(items: readonly ResolvedNode[]): ShortSplit | null {
    const { pos, neg } = splitAnd(items, this.ctx)
    return shortSplit(pos, neg, this.ctx)
  }

  private not(m: Uint8Array): Uint8Array {
    notWithin(m, this.universe)
    return m
  }

  /**
   * Visits each node once; its parts come from textPart's memory (one per node and context).
   * `shared`: the caller only reads the set, so a kept one may be returned as it is.
   */
  node(n: ResolvedNode, shared = false): Uint8Array {
    step()
    // A subtree of text terms alone is one FTS5 expression: FTS5 joins its doclists itself.
    const text = textPart(n, this.ctx)
    if (this.sets.words !== 'off' && 'fts' in text && this.byWordsTakes(n)) return this.byWords(n)
    // An AND with short prefixes beside other words is read in parts (ShortSplit).
    if ('fts' in text && (n.kind !== 'and' || this.split(n.items) === null)) return this.fts(text.fts, shared)
    switch (n.kind) {
      case 'text':
        // A field outside the index (`note`) matches nothing yet, as in SQL.
        return new Uint8Array(this.size)
      case 'equals':
        return this.equals(n.key, n.folded, shared)
      case 'range':
        return this.range(n, shared)
      case 'not':
        return this.not(this.node(n.item))
      case 'or': {
        const out = new Uint8Array(this.size)
        const fts = n.items.map((i) => textPart(i, this.ctx)).filter((p): p is { fts: string; costly: boolean } => 'fts' in p)
        if (fts.length > 0) orInto(out, this.fts(ftsOr(fts).fts, true))
        for (const item of n.items) if (!('fts' in textPart(item, this.ctx))) orInto(out, this.node(item, true))
        return out
      }
      case 'and': {
        const { pos, neg, other } = splitAnd(n.items, this.ctx)
        const split = shortSplit(pos, neg, this.ctx)
        let out: Uint8Array | null = null
        if (split !== null) {
          out = this.fts(split.long)
          for (const short of split.short) {
            andInto(out, this.fts(short, true))
          }
        } else if (pos.length > 0) out = this.fts(ftsAnd(pos, neg).fts)
        else if (neg.length > 0) out = this.not(this.fts(ftsOr(neg).fts))
        for (const { node } of other) {
          if (out === null) out = this.node(node)
          else andInto(out, this.node(node, true))
        }
        return out ?? new Uint8Array(this.size)
      }
    }
  }

  /**
   * Whether an AND or OR of words is taken from its words' sets (KeptSets.words). An AND of
   * two or more positive terms is taken only when every set is kept even where sets may be
   * read: FTS5 returns only their few common ids, where reading each term's ids costs them
   * all (two 5 % words: 20 times as many); its own expression is then read, and kept when common.
   */
  private byWordsTakes(n: ResolvedNode): boolean {
    const words = wordsOf(n, this.ctx)
    if (words === null) return false
    const positives = n.kind === 'and' ? n.items.filter((i) => i.kind !== 'not').length : 0
    const read = this.sets.words === 'read' && positives < 2
    return read || words.every((w) => this.sets.kept(w) !== null)
  }

  /** An AND or OR of plain words (wordsOf) as byte operations on each word's set. */
  private byWords(n: ResolvedNode): Uint8Array {
    step()
    if (n.kind === 'or') {
      const out = new Uint8Array(this.size)
      for (const item of n.items) orInto(out, this.wordsItem(item, true))
      return out
    }
    if (n.kind !== 'and') return this.fts((textPart(n, this.ctx) as { fts: string }).fts)
    let out: Uint8Array | null = null
    for (const item of n.items) {
      if (item.kind === 'not') continue
      if (out === null) out = this.wordsItem(item)
      else andInto(out, this.wordsItem(item, true))
    }
    // wordsOf takes an AND only as one FTS5 expression, which has a positive word.
    const acc = out ?? new Uint8Array(this.size)
    for (const item of n.items) {
      if (item.kind !== 'not') continue
      andNotInto(acc, this.wordsItem(item.item, true))
    }
    return acc
  }

  /** An item of an AND or OR taken word by word: a nested AND or OR by the same rule as the top one. */
  private wordsItem(n: ResolvedNode, shared = false): Uint8Array {
    const text = textPart(n, this.ctx) as { fts: string }
    if (n.kind === 'text' || !this.byWordsTakes(n)) return this.fts(text.fts, shared)
    return this.byWords(n)
  }

  private equals(key: string, folded: string, shared: boolean): Uint8Array {
    const keyIds = this.ctx.keyIds.get(key)
    if (!keyIds || keyIds.length === 0) return new Uint8Array(this.size)
    return this.term(`=${keyIds.join(',')}\u0000${folded}`, () => this.equalsOf(keyIds, folded), shared)
  }

  private equalsOf(keyIds: readonly number[], folded: string): Uint8Array {
    const out = new Uint8Array(this.size)
    const col = this.column(keyIds, false)
    const dict = foldedDict(col)
    const hit = new Uint8Array(dict.length)
    dict.forEach((v, c) => (hit[c] = v === folded ? 1 : 0))
    const { calls } = col
    const codes = col.codes!
    const { lo, size } = this
    const [start, end] = itemsWithin(col, lo, lo + size - 1)
    for (let i = start; i < end; i++) {
      const k = calls[i]! - lo
      if (k >= 0 && k < size && hit[codes[i]!] === 1) out[k] = 1
    }
    return out
  }

  private range(n: Extract<ResolvedNode, { kind: 'range' }>, shared: boolean): Uint8Array {
    const keyIds = this.ctx.keyIds.get(n.key)
    if (!keyIds || keyIds.length === 0) return new Uint8Array(this.size)
    const bound = (b: Bound | null): string => (b === null ? '' : `${b.strict ? '!' : ''}${b.value}`)
    return this.term(`${keyIds.join(',')}\u0000${bound(n.min)}..${bound(n.max)}`, () => this.rangeOf(keyIds, n), shared)
  }

  private rangeOf(keyIds: readonly number[], n: Extract<ResolvedNode, { kind: 'range' }>): Uint8Array {
    const out = new Uint8Array(this.size)
    const col = this.column(keyIds, true)
    const nums = col.nums!
    const { calls } = col
    const min = n.min?.value ?? -Infinity
    const max = n.max?.value ?? Infinity
    const minStrict = n.min?.strict === true
    const maxStrict = n.max?.strict === true
    const { lo, size } = this
    const [start, end] = itemsWithin(col, lo, lo + size - 1)
    for (let i = start; i < end; i++) {
      const v = nums[i]!
      const k = calls[i]! - lo
      // NaN (no number) fails every comparison, as value_num IS NULL does in SQL.
      if (k < 0 || k >= size || !(minStrict ? v > min : v >= min) || !(maxStrict ? v < max : v <= max)) continue
      out[k] = 1
    }
    return out
  }
}

const sortedColumns = new WeakMap<ValueColumn, { length: number; holes: number; sorted: boolean }>()

/**
 * The items [start, end) of a column that can belong to calls lo..hi: found by binary search
 * when the column's calls are in ascending order (as it is read whole), else every item. A
 * column changes only by appending items or marking them removed, so its length and holes
 * say whether the order was checked for it as it is.
 */
function itemsWithin(col: ValueColumn, lo: number, hi: number): [number, number] {
  const { calls, length, holes } = col
  let known = sortedColumns.get(col)
  if (known?.length !== length || known.holes !== holes) {
    let sorted = true
    for (let i = 1; i < length && sorted; i++) sorted = calls[i - 1]! <= calls[i]!
    known = { length, holes, sorted }
    sortedColumns.set(col, known)
  }
  if (!known.sorted) return [0, length]
  const first = (id: number): number => {
    let a = 0
    let b = length
    while (a < b) {
      const m = (a + b) >>> 1
      if (calls[m]! < id) a = m + 1
      else b = m
    }
    return a
  }
  return [first(lo), first(hi + 1)]
}
