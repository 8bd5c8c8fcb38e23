import { callIdOf } from '../../../shared/query/call-id'
import type { SearchQuery } from '../../../shared/domain'
import { QUARTER_MS } from '../../cache'
import { NO_CALL, type CallColumns } from './columns'
import type { CompiledQuery, QueryCatalog } from '../query/compile'
import { scopesFor } from '../query/compile'
import { PerVersion, type DataWatch } from '../data-watch'
import { PrefixSets, type PrefixSet } from './prefix-sets'
import { textPart, type QuerySqlContext } from '../query/query-sql'
import { Run, type BitmapReads, type KeptSets } from './bitmap-run'
import { WordSets, wordsOf } from './word-sets'
import { andInto, countOnes } from './byte-ops'
import { TermSets } from './term-sets'

/**
 * A query's exact match set as a byte per call id, computed in memory: each run of text terms
 * is one FTS5 expression whose row ids are read once (rowid-bounded by the date range), each
 * analysis term a pass over that key's in-memory column (CallColumns, kept per data version,
 * shared with facets), the date range from the calls' quarter hours (SQL only for the calls
 * of a quarter the range cuts), scope filters from their members; AND, OR and NOT are byte
 * operations. A count is then a sum over the bytes, instead of SQLite testing an EXISTS per
 * call for each analysis term (docs/search.md, "Counting").
 *
 * Exact for every query it takes; it takes none with review filters or extra-field filters
 * (those stay with SQL).
 */

export type { BitmapReads } from './bitmap-run'

/** Whether the evaluator answers this query (else the SQL path does). */
export function evaluable(query: SearchQuery): boolean {
  // A call looked up by ID is one row by the call_id index, a predicate the tree does not hold.
  return query.review === undefined && (query.fields ?? []).length === 0 && callIdOf(query.text) === null
}

/** Scope lists whose members are kept (a list is one filter of the filter bar: few). */
const SCOPE_LISTS_KEPT = 16

export class BitmapEvaluator {
  /** Each scope list's members as bytes, per data version: a scope filter's members are read once. */
  private readonly members: PerVersion<Map<string, { bits: Uint8Array; n: number }>>
  /** One- and two-letter prefixes' id sets, per data version (prefix-sets.ts). */
  private readonly prefixes: PrefixSets
  /** Common words' id sets, per data version (word-sets.ts); null: every word read from FTS5 each time (main's way). */
  private readonly words: WordSets | null
  /** Analysis terms' sets over every id, per data version (term-sets.ts); null: made for each evaluation (main's way). */
  private readonly terms: TermSets | null
  /** The last whole evaluation's base (range and scopes) and what it was made for, per data version; with `terms` only. */
  private readonly bases: PerVersion<{ last: { key: string; bits: Uint8Array } | null }> | null

  constructor(
    private readonly reads: BitmapReads,
    private readonly columns: CallColumns,
    watch: DataWatch,
    /** How a window reads an analysis key not kept: its items in the window's span, or its whole column. */
    private readonly coldKeyInWindow: 'items' | 'column' = 'items',
    /** Keeps common words' sets (the product); false: reads them from FTS5 each time. */
    wordSets = true,
    /** Keeps analysis terms' sets and the base of whole evaluations (the product); false: makes them each time. */
    termSets = true
  ) {
    this.members = new PerVersion(watch, () => new Map())
    this.prefixes = new PrefixSets(
      (match) => reads.ftsIds(match, null),
      () => columns.quarters().length,
      watch
    )
    this.words = wordSets ? new WordSets(() => columns.quarters().length, watch) : null
    this.terms = termSets ? new TermSets(watch) : null
    this.bases = termSets ? new PerVersion(watch, () => ({ last: null })) : null
  }

  /** A short prefix's or a common word's set when it is kept already; null otherwise. */
  keptSet(match: string): PrefixSet | null {
    return this.prefixes.peek(match) ?? this.words?.peek(match) ?? null
  }

  /** The query's plain words whose sets are kept now (explain names them). */
  keptWordsOf(q: CompiledQuery): number {
    if (this.words === null || q.match === null) return 0
    return this.words.keptWords().filter((w) => q.match!.includes(w)).length
  }

  /**
   * Whether a query that FTS5 alone decides (ftsOnly) is counted from its words' sets instead:
   * when every one is kept (facets or a match list read them), a byte sum beats FTS5's count,
   * which reads every doclist again. Without `read`, a set not kept is not read for a count:
   * FTS5 counts without its ids leaving SQLite, and the match list left unread lets a deep
   * page after the count skip by counting (count-skip). With `read` (term sets), words with
   * a NOT are read and kept when common: FTS5 counts "a -b" by walking a's whole doclist
   * and testing b's each time (~170 ms for 4,000,000 matches at 5,000,000 calls), a count
   * from kept sets is a few passes over bytes. A lone word, an AND of words (FTS5 returns
   * only their few common ids) and an OR are still counted by FTS5, as is any query with
   * fewer matches than a match list is read for (the count's plan).
   */
  countsByWords(q: CompiledQuery, catalog: QueryCatalog, read = false): boolean {
    const words = this.words
    if (words === null || q.node === null) return false
    const ctx: QuerySqlContext = {
      expand: (p) => catalog.expansions.get(p),
      keyIds: catalog.keyIds,
      shortPrefixIndex: catalog.shortPrefixIndex === true
    }
    // Before anything below looks at the sets (which makes them for the data as it is now).
    const atRest = read && words.atRest()
    const part = textPart(q.node, ctx)
    if (!('fts' in part)) return false
    const terms = wordsOf(q.node, ctx)
    if (words.peek(part.fts) !== null) return true
    // Read now (and kept when common): every later count of these words is byte operations.
    // Only on a cache at rest: while a sync or pull writes, each new data version would read
    // the words' whole doclists again (1.2 s for a word in 86 % of 5,000,000 calls, where
    // FTS5's own count takes 0.2 s) for a set dropped at the next write.
    const node = q.node
    if (read && terms !== null && node.kind === 'and' && node.items.some((i) => i.kind === 'not') && atRest) return true
    return terms !== null && terms.every((t) => words.peek(t) !== null)
  }

  /** The count of an FTS5 expression that is one short prefix, from its set (read now if not kept); else null. */
  prefixCount(match: string): number | null {
    return this.prefixes.get(match)?.n ?? null
  }

  /** A short prefix's set when it is kept already; null for any other expression or when not kept. */
  keptPrefix(match: string): PrefixSet | null {
    return this.prefixes.peek(match)
  }

  private membersOf(scopeIds: readonly number[], size: number): { bits: Uint8Array; n: number } {
    const kept = this.members.get()
    const key = scopeIds.join(',')
    let m = kept.get(key)
    if (m?.bits.length !== size) {
      const bits = new Uint8Array(size)
      const calls = this.reads.membersOf(scopeIds)
      for (let i = 0; i < calls.length; i++) if (calls[i]! < size) bits[calls[i]!] = 1
      m = { bits, n: countOf(bits) }
      if (kept.size >= SCOPE_LISTS_KEPT) kept.clear()
      kept.set(key, m)
    }
    return m
  }

  /**
   * The FTS5 expression that alone decides the query, when it does: text terms only, no date
   * range, and every scope filter held by every call (the default "answered" of a cache
   * synced with answered calls only). Its count is then FTS5's own, without the ids leaving
   * SQLite (about half the cost of reading them).
   */
  ftsOnly(query: SearchQuery, q: CompiledQuery, catalog: QueryCatalog, calls: number): string | null {
    // Review and extra-field filters are not in FTS5: its count(*) would count calls they exclude.
    if (!evaluable(query) || q.empty || q.node === null || query.from !== null || query.to !== null) return null
    const ctx: QuerySqlContext = {
      expand: (p) => catalog.expansions.get(p),
      keyIds: catalog.keyIds,
      shortPrefixIndex: catalog.shortPrefixIndex === true
    }
    const part = textPart(q.node, ctx)
    // Counted by FTS5 as one expression, a short prefix beside other words would merge every
    // word under it (ShortSplit): the evaluator reads it in parts.
    if (!('fts' in part) || q.split) return null
    const size = this.columns.quarters().length
    for (const scopeIds of scopesFor(query, catalog.scopes, catalog.typeNames)) {
      if (this.membersOf(scopeIds, size).n !== calls) return null
    }
    return part.fts
  }

  /**
   * The matches of a compiled query (byte 1 per matching id, sized to the largest id + 1).
   * `within`: only ids in [lo, hi] are asked about (the rest read 0), so FTS5 reads only that
   * stretch of its doclists (a first page asks about the newest calls first).
   */
  evaluate(query: SearchQuery, q: CompiledQuery, catalog: QueryCatalog, within: readonly [number, number] | null = null): Uint8Array {
    const size = this.columns.quarters().length
    if (within === null) return this.evaluateSpan(query, q, catalog, null).bits
    const out = new Uint8Array(size)
    const span = this.evaluateSpan(query, q, catalog, within)
    out.set(span.bits.subarray(0, Math.max(0, size - span.lo)), span.lo)
    return out
  }

  /**
   * The same over the ids in `within` only: `bits[id - lo]` for ids lo..lo + bits.length - 1,
   * every array sized to the span, so a first page's window costs what the window holds, not
   * the whole cache (a pass over 1,000,000 ids per term and per AND was most of a window's
   * cost). Null `within`: every id, lo 0.
   */
  evaluateSpan(
    query: SearchQuery,
    q: CompiledQuery,
    catalog: QueryCatalog,
    within: readonly [number, number] | null,
    /**
     * The span's quarter hours and scope members read for it alone (window-slice: the columns
     * are not kept yet, and reading them whole would sit on the keystroke); within required.
     */
    spanOnly = false
  ): { bits: Uint8Array; lo: number } {
    let lo: number
    let size: number
    let spanQuarters: Int32Array
    let members: (scopeIds: readonly number[]) => Uint8Array
    let ids: number
    if (spanOnly && within !== null) {
      lo = Math.max(0, within[0])
      size = Math.max(0, within[1] - lo + 1)
      const read = this.reads.quartersIn({ lo, hi: lo + size - 1 })
      spanQuarters = new Int32Array(size).fill(NO_CALL)
      for (let i = 0; i < read.ids.length; i++) spanQuarters[read.ids[i]! - lo] = read.quarters[i]!
      members = (scopeIds) => {
        const bits = new Uint8Array(size)
        const calls = this.reads.membersIn(scopeIds, { lo, hi: lo + size - 1 })
        for (let i = 0; i < calls.length; i++) bits[calls[i]! - lo] = 1
        return bits
      }
      // No kept prefix set is sized to this: the span's stretch of each doclist is read.
      ids = -1
    } else {
      const quarters = this.columns.quarters()
      lo = within === null ? 0 : Math.max(0, Math.min(quarters.length, within[0]))
      const hi = within === null ? quarters.length - 1 : Math.min(quarters.length - 1, within[1])
      size = Math.max(0, hi - lo + 1)
      spanQuarters = quarters.subarray(lo, lo + size)
      members = (scopeIds) => this.membersOf(scopeIds, quarters.length).bits.subarray(lo, lo + size)
      ids = quarters.length
    }
    if (q.empty || size === 0) return { bits: new Uint8Array(size), lo }
    const base =
      spanOnly || within !== null
        ? this.base(query, spanQuarters, members, catalog, lo)
        : this.wholeBase(query, spanQuarters, members, catalog)
    // With a range or scopes, FTS5 reads only the doclists between the first and last call
    // they allow (narrow when ids grow with call time, as a sync in time order writes them).
    let bounds: readonly [number, number] | null = null
    if (within !== null || query.from !== null || query.to !== null || q.where.some((w) => w.includes('scope_members'))) {
      const first = base.indexOf(1)
      if (first < 0) return { bits: new Uint8Array(size), lo }
      bounds = [lo + first, lo + base.lastIndexOf(1)]
    }
    const ctx: QuerySqlContext = {
      expand: (p) => catalog.expansions.get(p),
      keyIds: catalog.keyIds,
      shortPrefixIndex: catalog.shortPrefixIndex === true
    }
    // A short prefix's set is read whole only for a whole evaluation (a count, facets, a match
    // list); a first page's window uses it when kept, else reads its stretch of the doclist. A
    // common word's set is read whole (and kept) only when the bounds hold most ids anyway (no
    // range; scopes held by most calls): with a range FTS5 reads the stretch between its ids,
    // often far less.
    const whole = within === null
    const unbounded = whole && (bounds === null || (bounds[1] - bounds[0] + 1) * 2 >= size)
    const words = this.words
    const sets: KeptSets = {
      set: (match) => (whole ? this.prefixes.get(match) : this.prefixes.peek(match)) ?? words?.peek(match) ?? null,
      offer: words !== null && unbounded ? (match, ids) => words.offer(match, ids) : null,
      kept: (match) => this.keptSet(match),
      words: words === null ? 'off' : unbounded ? 'read' : 'kept'
    }
    const run = new Run(
      this.reads,
      this.columns,
      ctx,
      base,
      bounds,
      lo,
      size,
      ids,
      sets,
      within !== null && this.coldKeyInWindow === 'items',
      spanOnly ? null : this.terms
    )
    const node = q.node
    // A kept base is shared: the caller gets a copy it may change.
    if (node === null) return { bits: this.bases === null ? base : base.slice(), lo }
    const m = run.node(node)
    andInto(m, base)
    return { bits: m, lo }
  }

  /**
   * The base of an evaluation over every id: kept for the range and scopes it was made for
   * (a pass over every call's quarter hour, 5,000,000 at 5,000,000 calls, for each count and
   * facets otherwise) until the data changes or another range or scope filter is asked about.
   */
  private wholeBase(
    query: SearchQuery,
    quarters: Int32Array,
    members: (scopeIds: readonly number[]) => Uint8Array,
    catalog: QueryCatalog
  ): Uint8Array {
    if (this.bases === null) return this.base(query, quarters, members, catalog, 0)
    const key = JSON.stringify([query.from, query.to, scopesFor(query, catalog.scopes, catalog.typeNames)])
    const kept = this.bases.get()
    if (kept.last !== null && kept.last.key === key && kept.last.bits.length === quarters.length) return kept.last.bits
    const bits = this.base(query, quarters, members, catalog, 0)
    kept.last = { key, bits }
    return bits
  }

  /** The calls the date range and scope filters allow (every call without them), ids lo..lo + size - 1. */
  private base(
    query: SearchQuery,
    /** The span's quarter hours: [i] for id lo + i. */
    quarters: Int32Array,
    members: (scopeIds: readonly number[]) => Uint8Array,
    catalog: QueryCatalog,
    lo: number
  ): Uint8Array {
    const size = quarters.length
    const base = new Uint8Array(size)
    const { from, to } = query
    // Quarters wholly inside [from, to) from the column; a quarter the range cuts from SQL.
    const q0 = from === null ? -Infinity : Math.ceil(from / QUARTER_MS)
    const q1 = to === null ? Infinity : Math.floor(to / QUARTER_MS) - 1
    for (let i = 0; i < size; i++) {
      const k = quarters[i]!
      if (k !== NO_CALL && k >= q0 && k <= q1) base[i] = 1
    }
    const cut: Array<[number, number]> = []
    if (from !== null && from % QUARTER_MS !== 0) cut.push([from, Math.min(to ?? Infinity, q0 * QUARTER_MS)])
    if (to !== null && to % QUARTER_MS !== 0) cut.push([Math.max(from ?? -Infinity, (q1 + 1) * QUARTER_MS), to])
    for (const [a, b] of cut) {
      if (!(a < b)) continue
      const ids = this.reads.idsInTime(Math.max(a, Number.MIN_SAFE_INTEGER), Math.min(b, Number.MAX_SAFE_INTEGER))
      for (let i = 0; i < ids.length; i++) {
        const k = ids[i]! - lo
        if (k >= 0 && k < size) base[k] = 1
      }
    }
    for (const scopeIds of scopesFor(query, catalog.scopes, catalog.typeNames)) andInto(base, members(scopeIds))
    return base
  }
}

/** How many calls a byte set holds. */
export function countOf(m: Uint8Array): number {
  return countOnes(m)
}

/** The ids a byte set holds, ascending (`m[i]` is id `lo + i`: a span's set from `lo`). */
export function idsOf(m: Uint8Array, n = countOf(m), lo = 0): Int32Array {
  const out = new Int32Array(n)
  let k = 0
  for (let i = 0; i < m.length; i++) if (m[i] === 1) out[k++] = lo + i
  return out
}
