import { REVIEW_STATUSES, type CallRow, type CellValue, type ColumnInfo, type ResultColumn, type RowCells } from '../../../shared/domain'
import type { ScopeRef, ViewReads } from '../../cache'
import type { SearchCatalog } from '../query/catalog'
import { MAX_MASK_TYPES, type CallColumns } from './columns'
import { PerVersion, type DataWatch } from '../data-watch'
import { rankNumbers } from './number-ranks'

/**
 * Every call in a column's order: `order[0, valued)` by value (ties in date order), then the
 * calls without a value in date order. Ascending reads it forwards; descending reads the
 * valued part backwards and keeps the calls without a value last.
 */
export interface SortedColumn extends RankedColumn {
  order: Int32Array
  valued: number
}

/**
 * A column's values per call as ranks: `rankOf[id]` indexes `labels` (−1: no value), ranks in
 * the column's order. Numeric columns carry each rank's number in `numbers`. Insight counts
 * and averages over it (insight-series.ts) as the results list sorts by it.
 */
export interface RankedColumn {
  rankOf: Int32Array
  labels: readonly string[]
  numbers: Float64Array | null
}

/** The call at position `i` of a sorted column in a direction. */
export function positionAt(s: SortedColumn, dir: 'asc' | 'desc', i: number): number {
  return dir === 'asc' || i >= s.valued ? s.order[i]! : s.order[s.valued - 1 - i]!
}

/** Newest calls read for the extra fields a service sends. */
const EXTRA_SAMPLE = 500
/** Sorted columns kept at once (each is 4 bytes a call). */
const SORTED_KEPT = 4

/**
 * Turkish collation for text columns: "Çağrı" after "Cem", "İ" with "i", numbers inside
 * text by value; case and accents second.
 */
const collator = new Intl.Collator('tr', { sensitivity: 'base', numeric: true })
/**
 * Values the first one calls equal ("Beta", "beta") are still distinct values: this orders
 * them (accents, then capitals first), so each keeps one place whatever order they were read
 * in; then code points.
 */
const secondary = new Intl.Collator('tr', { numeric: true, caseFirst: 'upper' })
const textOrder = (a: string, b: string): number => collator.compare(a, b) || secondary.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0)

type ReviewField = 'status' | 'tags' | 'score'
type Parsed =
  { kind: 'callType' } | { kind: 'extra'; field: string } | { kind: 'analysis'; key: string } | { kind: 'review'; field: ReviewField }

/** The review columns, always offered: review is local work on any cache. */
const REVIEW_COLUMNS: readonly ColumnInfo[] = [
  { column: 'review:status', label: 'review:status', numeric: false },
  { column: 'review:tags', label: 'review:tags', numeric: false },
  { column: 'review:score', label: 'review:score', numeric: true }
]

/** A sorted review column is kept under the review version it was built at (annotation writes do not move the data version). */
export function sortedKey(column: ResultColumn, reviewVersion: number): string {
  return column.startsWith('review:') ? `${column}\u0000${reviewVersion}` : column
}

function parse(column: ResultColumn): Parsed {
  if (column === 'callType') return { kind: 'callType' }
  if (column.startsWith('review:')) return { kind: 'review', field: column.slice(7) as ReviewField }
  if (column.startsWith('extra:')) return { kind: 'extra', field: column.slice(6) }
  return { kind: 'analysis', key: column.slice(9) }
}

/**
 * A rank per call id (−1: no value) into an order: a counting sort over the calls in date
 * order, so equal values keep date order and the whole sort is two passes over the calls
 * once the distinct values are ranked. At 1,000,000 calls that is a few milliseconds where a
 * comparison sort of the calls would take a second.
 */
export function orderByRank(byDate: Int32Array, rankOf: Int32Array, ranks: number): Pick<SortedColumn, 'order' | 'valued'> {
  const starts = new Int32Array(ranks + 2)
  const rank = (id: number): number => {
    const r = id < rankOf.length ? rankOf[id]! : -1
    return r < 0 ? ranks : r
  }
  for (let i = 0; i < byDate.length; i++) starts[rank(byDate[i]!) + 1]!++
  for (let r = 1; r < starts.length; r++) starts[r]! += starts[r - 1]!
  const valued = starts[ranks]!
  const order = new Int32Array(byDate.length)
  for (let i = 0; i < byDate.length; i++) {
    const id = byDate[i]!
    order[starts[rank(id)]!++] = id
  }
  return { order, valued }
}

/** Ranks of distinct values: numbers numerically, text in Turkish collation. */
function rankText(values: Iterable<string>): { rank: Map<string, number>; distinct: string[] } {
  const distinct = [...new Set(values)].sort(textOrder)
  return { rank: new Map(distinct.map((v, i) => [v, i])), distinct }
}

const numbered = (distinct: Float64Array): Pick<RankedColumn, 'labels' | 'numbers'> => ({
  labels: Array.from(distinct, String),
  numbers: distinct
})

/** Numbers of calls (`calls[i]` has `nums[i]`) ranked into `rankOf`; the first value a call has decides. */
function rankCalls(calls: Int32Array, nums: Float64Array, length: number, rankOf: Int32Array): Pick<RankedColumn, 'labels' | 'numbers'> {
  const { distinct, rankOf: rank } = rankNumbers(nums.subarray(0, length))
  for (let i = 0; i < length; i++) {
    const call = calls[i]!
    const n = nums[i]!
    // Calls -1 are items a write removed.
    if (call >= 0 && call < rankOf.length && rankOf[call] === -1 && !Number.isNaN(n)) rankOf[call] = rank(n)
  }
  return numbered(distinct)
}

/** The type of each single-type scope, types in collation order. */
function typeScopes(scopes: readonly ScopeRef[]): Array<{ type: string; scopes: number[] }> {
  const byType = new Map<string, number[]>()
  for (const s of scopes)
    if (s.filters.callTypes.length === 1) byType.set(s.filters.callTypes[0]!, [...(byType.get(s.filters.callTypes[0]!) ?? []), s.id])
  return [...byType.entries()].sort((a, b) => collator.compare(a[0], b[0])).map(([type, ids]) => ({ type, scopes: ids }))
}

/**
 * The results list's chosen columns: which can be chosen, each call's value in a page, and
 * whole columns in sorted order for sorting by them. Sorted orders are built once per data
 * version from the in-memory facet columns (analysis keys, call types) or one read of an
 * extra field, and paged through by position (column-page.ts), so a sort at 1,000,000
 * calls costs its first build and then what a date-ordered page costs.
 */
export class ViewColumns {
  private readonly sorted: PerVersion<Map<string, SortedColumn>>
  private readonly extras: PerVersion<Array<{ field: string; numeric: boolean }>>

  constructor(
    private readonly reads: ViewReads,
    private readonly columns: CallColumns,
    private readonly catalog: SearchCatalog,
    watch: DataWatch
  ) {
    this.sorted = new PerVersion(watch, () => new Map())
    this.extras = new PerVersion(watch, () => reads.extraFields(EXTRA_SAMPLE))
  }

  /** The extra fields the service sends (agentName, durationSeconds, …), as the query language names them. */
  extraFieldNames(): string[] {
    return this.extras
      .get()
      .map((e) => e.field)
      .filter((f) => /^[A-Za-z0-9_]{1,100}$/.test(f))
  }

  /** What the chooser offers: the call type (when a scope was synced by one), extra fields, analysis keys. */
  list(): ColumnInfo[] {
    const out: ColumnInfo[] = []
    if (typeScopes(this.catalog.scopes()).length > 0) out.push({ column: 'callType', label: 'callType', numeric: false })
    for (const e of this.extras.get())
      if (/^[A-Za-z0-9_]{1,100}$/.test(e.field)) out.push({ column: `extra:${e.field}`, label: e.field, numeric: e.numeric })
    for (const k of this.catalog.analysisKeys()) out.push({ column: `analysis:${k.key}`, label: k.friendlyName, numeric: k.numeric })
    out.push(...REVIEW_COLUMNS)
    return out
  }

  /** Every call in the column's order (built once per data version, a few kept). */
  sortedBy(column: ResultColumn): SortedColumn {
    const kept = this.sorted.get()
    const key = sortedKey(column, this.reads.reviewVersion())
    let s = kept.get(key)
    if (s) {
      kept.delete(key)
    } else {
      s = this.build(parse(column))
      if (kept.size >= SORTED_KEPT) kept.delete(kept.keys().next().value!)
    }
    kept.set(key, s)
    return s
  }

  /** The review version a sort by this column was built at (0 for other columns): part of a query's per-sort memory. */
  versionOf(column: ResultColumn): number {
    return column.startsWith('review:') ? this.reads.reviewVersion() : 0
  }

  private build(c: Parsed): SortedColumn {
    const ranked = this.ranked(c)
    return { ...orderByRank(this.columns.byDate(), ranked.rankOf, ranked.labels.length), ...ranked }
  }

  /** The column's value of every call as a rank (see RankedColumn). */
  private ranked(c: Parsed): RankedColumn {
    // Sized to the ids the date order covers (kept with it, per data version).
    const size = this.columns.idSpace()
    const rankOf = new Int32Array(size).fill(-1)
    const none = { rankOf, labels: [], numbers: null }
    if (c.kind === 'review') {
      const { calls, values } = this.reads.reviewColumn(c.field)
      if (c.field === 'score') return { rankOf, ...rankCalls(calls, Float64Array.from(values, Number), calls.length, rankOf) }
      // Status in workflow order (new, in review, reviewed, follow-up), tags in collation order.
      const text = values.map(String)
      const labels = c.field === 'status' ? REVIEW_STATUSES.map((v) => v as string) : rankText(text).distinct
      const rank = new Map(labels.map((v, i) => [v, i]))
      for (let i = 0; i < calls.length; i++) if (calls[i]! < size && rank.has(text[i]!)) rankOf[calls[i]!] = rank.get(text[i]!)!
      return { rankOf, labels, numbers: null }
    }
    if (c.kind === 'callType') {
      const types = typeScopes(this.catalog.scopes()).slice(0, MAX_MASK_TYPES)
      const masks = this.columns.typeMasks(types.map((t) => t.scopes))
      for (let id = 0; id < size && id < masks.length; id++) {
        const m = masks[id]!
        if (m !== 0) rankOf[id] = 31 - Math.clz32(m & -m)
      }
      return { rankOf, labels: types.map((t) => t.type), numbers: null }
    }
    if (c.kind === 'extra') {
      const { calls, values } = this.reads.extraColumn(c.field)
      const numeric = values.length > 0 && values.every((v) => v.trim() !== '' && Number.isFinite(Number(v)))
      if (numeric) return { rankOf, ...rankCalls(calls, Float64Array.from(values, Number), calls.length, rankOf) }
      const { rank, distinct } = rankText(values)
      for (let i = 0; i < calls.length; i++) if (calls[i]! < size) rankOf[calls[i]!] = rank.get(values[i]!)!
      return { rankOf, labels: distinct, numbers: null }
    }
    const info = this.catalog.keyInfo(c.key)
    if (!info) return none
    const col = this.columns.values(this.catalog.keyIds(c.key), info.numeric)
    // A call's first item of the key decides.
    if (col.nums) return { rankOf, ...rankCalls(col.calls, col.nums, col.length, rankOf) }
    if (!col.codes) return none
    const { rank, distinct } = rankText(col.dict)
    const codeRank = Int32Array.from(col.dict, (v) => rank.get(v)!)
    for (let i = 0; i < col.length; i++) {
      const call = col.calls[i]!
      if (call >= 0 && call < size && rankOf[call] === -1) rankOf[call] = codeRank[col.codes[i]!]!
    }
    return { rankOf, labels: distinct, numbers: null }
  }

  /** The chosen columns' values for a page's rows. */
  cells(rows: readonly CallRow[], columns: readonly ResultColumn[]): RowCells {
    if (rows.length === 0 || columns.length === 0) return {}
    const parsed = columns.map((c) => ({ column: c, p: parse(c) }))
    const fields = [...new Set(parsed.flatMap((c) => (c.p.kind === 'extra' ? [c.p.field] : [])))]
    const keyOfId = new Map<number, string>()
    const numericKey = new Set<string>()
    for (const c of parsed) {
      if (c.p.kind !== 'analysis') continue
      for (const id of this.catalog.keyIds(c.p.key)) keyOfId.set(id, c.p.key)
      if (this.catalog.keyInfo(c.p.key)?.numeric) numericKey.add(c.p.key)
    }
    const read = this.reads.cells(
      rows.map((r) => r.callId),
      fields,
      [...keyOfId.keys()]
    )
    const typeOfScope = new Map<number, string>()
    for (const s of this.catalog.scopes()) if (s.filters.callTypes.length === 1) typeOfScope.set(s.id, s.filters.callTypes[0]!)
    const types = new Map<number, Set<string>>()
    for (const [call, scope] of read.members) {
      const t = typeOfScope.get(scope)
      if (t !== undefined) types.set(call, (types.get(call) ?? new Set()).add(t))
    }
    const items = new Map<number, Map<string, CellValue>>()
    for (const [call, keyId, value, num] of read.items) {
      const key = keyOfId.get(keyId)
      if (key === undefined) continue
      const mine = items.get(call) ?? new Map<string, CellValue>()
      if (!mine.has(key)) mine.set(key, numericKey.has(key) && num !== null ? num : value)
      items.set(call, mine)
    }
    const reviewOf = new Map(rows.map((r) => [r.callId, r.review]))
    const out: RowCells = {}
    for (const call of read.calls) {
      const cell: Record<string, CellValue> = {}
      for (const { column, p } of parsed) {
        if (p.kind === 'callType') cell[column] = types.has(call.id) ? [...types.get(call.id)!].sort(collator.compare).join(', ') : null
        else if (p.kind === 'extra') cell[column] = scalar(call.extra[fields.indexOf(p.field)])
        else if (p.kind === 'review') cell[column] = reviewCell(reviewOf.get(call.callId), p.field)
        else cell[column] = items.get(call.id)?.get(p.key) ?? null
      }
      out[call.callId] = cell
    }
    return out
  }
}

/** A review column's cell from the row's annotation: the status code (the app names it), tags joined, the total. */
function reviewCell(review: CallRow['review'], field: ReviewField): CellValue {
  if (!review) return null
  if (field === 'status') return review.status
  if (field === 'tags') return review.tags.length > 0 ? review.tags.join(', ') : null
  return review.total
}

function scalar(v: unknown): CellValue {
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string') return v
  return null
}
