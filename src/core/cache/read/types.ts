import type { CallType } from '../../../shared/domain'
import type { CallRecord, CallRow } from '../../../shared/domain'
import type { NamedItem } from '../../../shared/query'
import type { ChangeSet } from '../change-journal'
import type { ScopeFilters } from '../sync-state/sync-scopes'

/**
 * Everything search reads from one account's cache, in parts by who asks (as Signal
 * Desktop's DataReader declares its reads once). The SQLite side owns every statement:
 * fixed ones by their text, composed ones (a plan's SELECT, built by search's pure SQL
 * builder and handed over as an `SqlPiece`) in a bounded statement cache.
 */
export interface SearchReader {
  readonly data: DataReads
  readonly catalog: CatalogReads
  readonly matches: MatchReads
  readonly rows: RowReads
  readonly columns: ColumnReads
  readonly totals: TotalsReads
  readonly facetSql: FacetSqlReads
  readonly view: ViewReads
  readonly rank: RankReads
}

/** SQL text and its parameters, in order. */
export interface SqlPiece {
  sql: string
  params: readonly unknown[]
}

/** A row's position in its order: (call_at, call_id) in date order, (bm25 rank, id) in relevance order. */
export type SortKey = [number, string] | [number, number]

/**
 * Where the data stands. `writeCount` moves with this connection's writes (CallCache counts
 * them and journals what they changed); `sqliteDataVersion` (PRAGMA data_version) moves
 * when another connection commits. Equal versions mean equal data.
 */
export interface DataVersion {
  readonly writeCount: number
  readonly sqliteDataVersion: number
}

export const sameVersion = (a: DataVersion, b: DataVersion): boolean =>
  a.writeCount === b.writeCount && a.sqliteDataVersion === b.sqliteDataVersion

export interface DataReads {
  version(): DataVersion
  /** What this connection's writes after `writeCount` changed; null when not known. */
  changesSince(writeCount: number): ChangeSet | null
  /**
   * The number of calls. Outside a team cache's window rows are never deleted one by one
   * (only clear() empties the table), so it is the largest call id, read in O(1); in a
   * window, the sum of the calls per hour (a few thousand rows).
   */
  maxCallId(): number
  /** Moves with this connection's writes to annotations and review lists. */
  reviewVersion(): number
  /** The account shares review work: others' evaluations are pulled here (team_evaluations). */
  reviewShared(): boolean
}

export interface ScopeRef {
  id: number
  filters: ScopeFilters
  /** The merged [from, to) intervals the scope's finished passes covered. */
  coverage?: ReadonlyArray<readonly [number, number]>
}

/** One (key, friendly name) pair of `analysis_keys`, with its item counters. */
export interface AnalysisKeyRow {
  id: number
  key: string
  friendlyName: string
  items: number
  numericItems: number
}

export interface CatalogReads {
  scopes(): ScopeRef[]
  /** The account's call type catalog (Value, Description). */
  callTypes(): CallType[]
  /** Every (key, friendly name) pair, by key, then most items first, then id. */
  analysisKeys(): AnalysisKeyRow[]
  /**
   * Up to `limit` indexed terms starting with `prefix`, in binary order: from the kept term
   * list where the cache has one (it may hold terms no call holds any more), or (`'index'`,
   * and a cache without the list) from the index itself.
   */
  prefixTerms(prefix: string, limit: number, from?: 'list' | 'index'): string[]
  /** The prefix lengths (in characters) the full-text index keeps prefix indexes for. */
  prefixIndexLengths(): number[]
  /** Whether one- and two-letter prefixes are read from the short-prefix index (schema 17 on). */
  hasShortPrefixIndex(): boolean
  /** The window of a team cache the cache holds, or null when it holds everything it has. */
  heldWindow(): HeldWindow | null
}

/**
 * A team cache's window as search sees it: every call dated from `start` on (null: every
 * date) that is a member of one of `scopes` (null: every scope) is held.
 */
export interface HeldWindow {
  start: number | null
  days: number | null
  /** The names of the worker scopes held. */
  scopes: string[] | null
}

export interface MatchReads {
  /**
   * The matches of an FTS5 MATCH expression, counted up to `cap`; `ids` (a JSON array of
   * rowids) when the count stayed under the cap, i.e. when the list is every match.
   */
  boundedMatches(match: string, cap: number): { n: number; ids: string | null }
  /**
   * boundedMatches of `long` AND every short prefix of `short` (ShortSplit), each read from its
   * own index, or tested against `kept`: the short prefixes' sets (a byte per id), when in memory.
   */
  boundedSplit(
    split: { long: string; short: readonly string[] },
    cap: number,
    kept?: readonly Uint8Array[]
  ): { n: number; ids: string | null }
  /** The same for the ids an SqlPiece selects (review candidates). */
  boundedIds(ids: SqlPiece, cap: number): { n: number; ids: string | null }
  /** The ids a SELECT of one `id` column returns, read as one list. */
  idList(ids: SqlPiece): Int32Array
  /** The number a `SELECT count(*) …` returns. */
  count(countSql: SqlPiece): number
  /** The number of rows an FTS5 MATCH expression matches. */
  ftsCount(match: string): number
  /** The row ids an FTS5 expression matches, within [lo, hi] when given. */
  ftsIds(match: string, bounds: readonly [number, number] | null): Int32Array
  /** The ids of the calls with call_at in [from, to). */
  idsInTime(from: number, to: number): Int32Array
}

/** The full-text index's totals bm25 reads. */
export interface IndexTotals {
  /** No rank function is configured: FTS5's rank is bm25() with its defaults. */
  defaultRank: boolean
  /** Rows in the index. */
  rows: number
  /** Tokens in the index, all columns. */
  tokens: number
  /** Indexed columns. */
  columns: number
}

/** What relevance ranking in memory reads (search/relevance-rank.ts). */
export interface RankReads {
  totals(): IndexTotals
  /** Rows matching the term (as bm25's document count), and the vocabulary's rows and instances of it. */
  termDocs(term: string): { docs: number; vocabDocs: number; instances: number }
  /** Rows holding the term more than once, with how many times. */
  repeats(term: string): Map<number, number>
  /** The smallest and largest id of the calls with call_at in [from, to); null when none. */
  idSpan(from: number | null, to: number | null): [number, number] | null
  /** Each indexed row's token count (all `columns`) for ids in [lo, hi], in id order; ids null when every id in it has a row. */
  docSizes(lo: number, hi: number, columns: number): { ids: Int32Array | null; sizes: Int32Array }
  /** Natural logarithm as SQLite computes it (C's log). */
  ln(x: number): number
}

/** A page row and its sort key. */
export interface KeyedRow {
  row: CallRow
  key: SortKey
}

export interface RowReads {
  /** The key of the one row a `SELECT … AS k0, … AS k1 … LIMIT 1 OFFSET n` returns; null past the end. */
  firstKey(keys: SqlPiece): SortKey | null
  /** Calls `visit` with each (k0, k1) the SELECT returns, in order. */
  eachKey(keys: SqlPiece, visit: (key: SortKey) => void): void
  /**
   * The rows of a page: `inner` selects `rid` (call id), `k0`, `k1` in sort order and cuts
   * the page; the rows are then read by id, so a sort carries three values per match.
   */
  page(inner: SqlPiece, descending: boolean): KeyedRow[]
  /** The rows of these call ids, in the order given (ids that are gone are skipped). */
  byIds(ids: readonly number[]): CallRow[]
  /** Streams the full records of a SELECT of `c.*` rows (one analysis read per call). */
  records(calls: SqlPiece): Iterable<CallRecord>
  /** The analysis keys the calls of a SELECT of `c.*` rows hold. */
  keysIn(calls: SqlPiece): string[]
  record(callId: string): CallRecord | null
  /** The analysis items of these calls (by callId), in item order, with their keys' names. */
  items(callIds: readonly string[]): Map<string, NamedItem[]>
}

/** Calls added from `from` on, and the `touched` ones: what a column reads after a write. */
export interface Since {
  from: number
  touched: readonly number[]
}

/** The calls lo..hi (ids, both included): a window's items, or one piece of a column read in pieces. */
export interface CallSpan {
  lo: number
  hi: number
}

export interface ColumnReads {
  /** Each call's quarter hour (⌊call_at / 15 min⌋), for all calls or those `since`. */
  quarters(since: Since | null): { maxId: number; ids: Int32Array; quarters: Int32Array }
  /** Every call id in (call_at, call_id) order, ascending. */
  idsByDate(): Int32Array
  /** The ids of the calls with call_at in [from, to), in the same order. */
  idsByDateIn(from: number, to: number): Int32Array
  /** The `w` newest (desc) or oldest calls in (call_at, call_id) order, ascending: a window without the whole order. */
  newestByDate(w: number, desc: boolean): Int32Array
  /** The smallest and largest call id; null when the cache holds no call. */
  idBounds(): CallSpan | null
  /**
   * Whether some call outside `span` may come before `key` in a page's date order (one dated
   * at or after its call_at when `desc`, at or before it otherwise): a page whose last row is
   * `key`, taken from the ids in `span`, is then not known to be the whole page. False: every
   * call before it lies in the span.
   */
  datedOutside(key: readonly [number, string], span: CallSpan, desc: boolean): boolean
  /** The (id, call_at, call_id) rows a SELECT of those three columns returns, in its order. */
  datedRows(rows: SqlPiece): Array<[number, number, string]>
  /** The quarter hours of the calls lo..hi only (ids without a call are left out). */
  quartersIn(span: CallSpan): { ids: Int32Array; quarters: Int32Array }
  /** The calls these scopes returned (a call once per scope). */
  membersOf(scopeIds: readonly number[]): Int32Array
  /** The same among the calls lo..hi only. */
  membersIn(scopeIds: readonly number[], span: CallSpan): Int32Array
  /** (call, scope) memberships of the calls `since`. */
  membershipsSince(since: Since): Array<[number, number]>
  /** The items of these key ids (all, of the calls `since`, or of a span of calls): their calls and text values. */
  textItems(keyIds: readonly number[], since: Since | CallSpan | null): { calls: Int32Array; values: string[] }
  /** The same with numeric values, NaN where a value is not a number. */
  numericItems(keyIds: readonly number[], since: Since | CallSpan | null): { calls: Int32Array; nums: Float64Array }
}

/** The results list's chosen columns (search/view-columns.ts). */
export interface ViewReads {
  /** The extra fields (scalars) the newest `sample` calls carry, and whether every value was a number. */
  extraFields(sample: number): Array<{ field: string; numeric: boolean }>
  /** One extra field of every call that has it (not empty), as text. */
  extraColumn(field: string): { calls: Int32Array; values: string[] }
  /**
   * A review field of every cached call that has an annotation: status, tags (joined with
   * ", ", none left out) or the score's total (a number; unscored left out).
   */
  reviewColumn(field: 'status' | 'tags' | 'score'): { calls: Int32Array; values: Array<string | number> }
  /** Moves with every annotation write of this connection: a review column's sort is built again. */
  reviewVersion(): number
  /**
   * For the calls of a page: their ids and extra fields (in the order asked), their items of
   * these key ids (call, key id, value, numeric value; in item order), their scope memberships.
   */
  cells(
    callIds: readonly string[],
    extraFields: readonly string[],
    keyIds: readonly number[]
  ): {
    calls: Array<{ id: number; callId: string; extra: unknown[] }>
    items: Array<[number, number, string, number | null]>
    members: Array<[number, number]>
  }
}

export interface TotalsReads {
  /** The first and last call_at; null when there are no calls. */
  callBounds(): { lo: number; hi: number } | null
  /** Calls per UTC hour in [hourFrom, hourTo), hours with calls only, ascending. */
  hourTotals(hourFrom: number, hourTo: number): Array<[number, number]>
  /** Calls with call_at in [from, to). */
  callsBetween(from: number, to: number): number
  /** Members per scope over the UTC hours [hourFrom, hourTo). */
  scopeHourTotals(scopeIds: readonly number[], hourFrom: number, hourTo: number): Array<[number, number]>
  /** Members per scope whose call_at is in [from, to). */
  scopeCallsBetween(scopeIds: readonly number[], from: number, to: number): Array<[number, number]>
  /** (value, numeric value, items) of these key ids, values with items only. */
  valueTotals(keyIds: readonly number[]): Array<[string, number | null, number]>
}

/**
 * Facets counted by SQL, over the calls a SELECT of `id` returns (`matches`; null: every
 * call). Used where the running totals and the in-memory columns cannot answer.
 */
export interface FacetSqlReads {
  /** Matches per range, `[start, end)` of call_at, by range index (ranges with matches only). */
  perRange(ranges: ReadonlyArray<readonly [number, number]>, matches: SqlPiece | null): Array<{ i: number; n: number }>
  /** The call_at of every match, ascending. */
  callTimes(matches: SqlPiece): number[]
  /** Matches per type, from (scope, type) pairs; a type vouched for by several scopes counts a call once. */
  perType(pairs: ReadonlyArray<readonly [number, string]>, matches: SqlPiece | null): Array<{ value: string; count: number }>
  /** The text values of these key ids over the matches. */
  textValues(keyIds: readonly number[], matches: SqlPiece | null): string[]
  /** The numeric values (non-null only) of these key ids over the matches. */
  numericValues(keyIds: readonly number[], matches: SqlPiece | null): number[]
}
