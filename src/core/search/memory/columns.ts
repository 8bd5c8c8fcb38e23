import { QUARTER_MS, sameVersion, type CallSpan, type ColumnReads, type DataVersion, type Since } from '../../cache'
import type { ChangeSet } from '../../cache'
import { MASK_BITS, withBit } from './bits'
import type { DataWatch } from '../data-watch'
import { mergeDateOrder } from '../paging/date-order'
import { rankOf, type DateOrder } from './date-rank'

/** In `CallColumns.quarters()`: no call has this id (the smallest int32). */
export const NO_CALL = -0x80000000
/** One bit per call type in `typeMasks`; more types use the SQL path. */
export const MAX_MASK_TYPES = MASK_BITS

/** One analysis key's items: the call of each (-1 once removed), and its value as a code or a number. */
export interface ValueColumn {
  /** Items in use: [0, length) of the arrays below. */
  length: number
  calls: Int32Array
  /** Text keys: index into `dict` per item. */
  codes: Int32Array | null
  dict: string[]
  /** Numeric keys: the numeric value per item, NaN where the value is not a number. */
  nums: Float64Array | null
  /** Items removed because their call changed; the column is read again when they pile up. */
  holes: number
}

/** Room for index `need`, doubling, new slots set to `fill`. */
function grown<T extends Int32Array | Uint32Array | Float64Array>(a: T, need: number, make: (n: number) => T, fill: number): T {
  if (need < a.length) return a
  const b = make(Math.max(need + 1, a.length * 2))
  b.set(a)
  b.fill(fill, a.length)
  return b
}

const dictIndex = new WeakMap<ValueColumn, Map<string, number>>()

/** Appends items to a column: their calls, and their values coded through the column's dictionary. */
function append(col: ValueColumn, calls: Int32Array, values: readonly string[] | null, nums: Float64Array | null): void {
  const n = calls.length
  if (n === 0) return
  const need = col.length + n - 1
  col.calls = grown(col.calls, need, (k) => new Int32Array(k), -1)
  col.calls.set(calls, col.length)
  if (nums !== null && col.nums !== null) {
    col.nums = grown(col.nums, need, (k) => new Float64Array(k), Number.NaN)
    col.nums.set(nums, col.length)
  }
  if (values !== null && col.codes !== null) {
    col.codes = grown(col.codes, need, (k) => new Int32Array(k), 0)
    let index = dictIndex.get(col)
    if (!index) dictIndex.set(col, (index = new Map(col.dict.map((v, i) => [v, i]))))
    for (let i = 0; i < n; i++) {
      const v = values[i]!
      let c = index.get(v)
      if (c === undefined) {
        c = col.dict.length
        col.dict.push(v)
        index.set(v, c)
      }
      col.codes[col.length + i] = c
    }
  }
  col.length += n
}

/**
 * The column with its arrays cut to its items: one read in pieces grew them by doubling, up to
 * twice what it holds (at 1,000,000 calls, 1,310,720 slots for a key's 1,000,000 items). A
 * column kept for the data version holds no spare room; a write's items grow it again.
 */
function compacted(col: ValueColumn): ValueColumn {
  const n = col.length
  if (col.calls.length > n) col.calls = col.calls.slice(0, n)
  if (col.codes !== null && col.codes.length > n) col.codes = col.codes.slice(0, n)
  if (col.nums !== null && col.nums.length > n) col.nums = col.nums.slice(0, n)
  return col
}

const keyList = (keyIds: readonly number[]): string => keyIds.map((k) => String(Math.trunc(k))).join(',')
const columnKey = (keyIds: readonly number[], numeric: boolean): string => `${numeric ? 'n' : 't'}${keyList(keyIds)}`

function emptyColumn(numeric: boolean): ValueColumn {
  return {
    length: 0,
    calls: new Int32Array(0),
    codes: numeric ? null : new Int32Array(0),
    dict: [],
    nums: numeric ? new Float64Array(0) : null,
    holes: 0
  }
}

/**
 * Per-call facet columns kept in memory: the quarter hour of every call (by id), which
 * single-type scopes returned it (a bit per type), and the items of the analysis keys asked
 * about. A facet over many matches counts the match list against them in one pass, instead
 * of SQLite testing every row of three tables against a match set it builds three times.
 *
 * They follow the data version (DataWatch): after this connection's own writes (a sync in
 * progress) only the calls they added or changed are read again; after any other change
 * (another connection's write, a clear, a journal that no longer reaches back) everything is.
 */
export class CallColumns {
  private builtAt: DataVersion | null = null
  private quarterById: Int32Array | null = null
  private idsByDate: Int32Array | null = null
  /** idSpace() and dateRank() of the order they were computed from. */
  private dateRanks: { order: Int32Array; size: number; rank: Int32Array | null } | null = null
  private masks: { key: string; groups: readonly (readonly number[])[]; masks: Uint32Array } | null = null
  private readonly valueColumns = new Map<string, { keyIds: readonly number[]; numeric: boolean; col: ValueColumn }>()
  /** Moves each time every column is dropped (a change not this connection's): a warm-up starts over. */
  private dropsValue = 0

  constructor(
    private readonly reads: ColumnReads,
    private readonly watch: DataWatch,
    /** Keeps the date order across a write (date-order.ts); null: the order is read again whole. */
    private readonly mergeDates: typeof mergeDateOrder | null = mergeDateOrder
  ) {}

  private dropAll(): void {
    this.dropsValue++
    this.idsByDate = null
    this.dateRanks = null
    this.quarterById = null
    this.masks = null
    this.valueColumns.clear()
  }

  private follow(): void {
    const { change, now } = this.watch.since(this.builtAt)
    this.builtAt = now
    if (change.kind === 'none') return
    // Incremental only when the columns exist (the quarters come first: masks and the
    // bitmap's size are read from them).
    if (change.kind === 'unknown' || this.quarterById === null) this.dropAll()
    else if (change.changes.newFrom !== null || change.changes.touched.length > 0) this.apply(change.changes, this.quarterById)
  }

  /** Reads again the calls a write added or touched, in every column built. */
  private apply(changes: ChangeSet, quarterById: Int32Array): void {
    const since: Since = { from: changes.newFrom ?? Number.MAX_SAFE_INTEGER, touched: changes.touched }
    const read = this.reads.quarters(since)
    const quarters = grown(quarterById, read.maxId, (n) => new Int32Array(n), NO_CALL)
    for (let i = 0; i < read.ids.length; i++) quarters[read.ids[i]!] = read.quarters[i]!
    this.quarterById = quarters
    // The date order keeps what the writes did not move and reads again the stretches they touched (date-order.ts).
    this.idsByDate =
      this.idsByDate && this.mergeDates
        ? this.mergeDates(this.idsByDate, quarters, read.ids, (a, b) => this.reads.idsByDateIn(a, b), QUARTER_MS, NO_CALL)
        : null
    if (this.masks) {
      const masks = grown(this.masks.masks, quarters.length - 1, (n) => new Uint32Array(n), 0)
      for (const id of read.ids) masks[id] = 0
      const groupOf = new Map<number, number>()
      this.masks.groups.forEach((scopes, t) => scopes.forEach((sc) => groupOf.set(sc, t)))
      for (const [call, scope] of this.reads.membershipsSince(since)) {
        const t = groupOf.get(scope)
        if (t !== undefined) masks[call] = withBit(masks[call]!, t)
      }
      this.masks = { ...this.masks, masks }
    }
    const changed = new Set(changes.touched)
    for (const [cacheKey, entry] of this.valueColumns) {
      const col = entry.col
      for (let i = 0; i < col.length; i++) {
        if (changed.has(col.calls[i]!)) {
          col.calls[i] = -1
          col.holes++
        }
      }
      if (col.holes > col.length / 2) {
        this.valueColumns.delete(cacheKey)
        continue
      }
      this.readItems(entry.keyIds, entry.numeric, since, col)
    }
  }

  /** Every call id in (call_at, call_id) order, ascending: offsets in date order for deep jumps. */
  byDate(): Int32Array {
    this.follow()
    if (this.idsByDate === null) {
      // The quarter hours first: without them a write would drop every column and read it
      // again (follow), with them it is merged (a sorted column's rebuild after a sync page
      // at 1,000,000 calls: seconds against a tenth of one: docs/perf-log.md, 2026-11-27).
      if (this.mergeDates !== null) this.quarters()
      this.idsByDate = this.reads.idsByDate()
    }
    return this.idsByDate
  }

  /**
   * Whether the date order and the quarter hours are in memory at this data version. Until
   * they are (a search just opened, before its warm-up read them), a first page reads its
   * window from the date index instead (window-slice, page-plan.ts): reading both whole is
   * most of a second at 1,000,000 calls.
   */
  orderKept(): boolean {
    this.follow()
    return this.idsByDate !== null && this.quarterById !== null
  }

  /** The `w` newest (desc) or oldest calls, ascending in date order, read from the date index. */
  newestByDate(w: number, desc: boolean): Int32Array {
    return this.reads.newestByDate(w, desc)
  }

  /** What is kept with the date order it was computed from (a new order, after a write, starts over). */
  private ofOrder(): { order: Int32Array; size: number; rank: Int32Array | null } {
    const order = this.byDate()
    if (this.dateRanks?.order !== order) {
      let size = 0
      for (let k = 0; k < order.length; k++) if (order[k]! >= size) size = order[k]! + 1
      this.dateRanks = { order, size, rank: null }
    }
    return this.dateRanks
  }

  /** The id space byDate() covers (its largest id + 1): what a per-id array over its calls is sized to. */
  idSpace(): number {
    return this.ofOrder().size
  }

  /**
   * Each call id's position in byDate() (−1: no call has the id), kept with the order: one
   * pass per data version instead of one per user (the review set ranks its annotations by
   * date with it, listed matches are put in date order with it).
   */
  dateRank(): Int32Array {
    return this.dateOrder().rank
  }

  /** The date order and each id's place in it, kept together (date-rank.ts). */
  dateOrder(): DateOrder {
    const kept = this.ofOrder()
    return { order: kept.order, rank: (kept.rank ??= rankOf(kept.order)) }
  }

  /** Whether quarters() is in memory at this data version (asking it then reads nothing). */
  quartersKept(): boolean {
    this.follow()
    return this.quarterById !== null
  }

  /** Quarter hour (⌊call_at / 15 min⌋) by call id; NO_CALL where no call has the id. */
  quarters(): Int32Array {
    this.follow()
    if (this.quarterById) return this.quarterById
    const read = this.reads.quarters(null)
    const out = new Int32Array(read.maxId + 1).fill(NO_CALL)
    for (let i = 0; i < read.ids.length; i++) out[read.ids[i]!] = read.quarters[i]!
    this.quarterById = out
    return out
  }

  /** Whether typeMasks(scopeGroups) is in memory at this data version. */
  typeMasksKept(scopeGroups: readonly (readonly number[])[]): boolean {
    this.follow()
    return this.masks?.key === JSON.stringify(scopeGroups)
  }

  /** Whether values(keyIds, numeric) is in memory at this data version. */
  valuesKept(keyIds: readonly number[], numeric: boolean): boolean {
    this.follow()
    return this.valueColumns.has(columnKey(keyIds, numeric))
  }

  /** Bit t of a call's mask: a scope in `scopeGroups[t]` returned it. At most MAX_MASK_TYPES groups. */
  typeMasks(scopeGroups: readonly (readonly number[])[]): Uint32Array {
    if (scopeGroups.length > MAX_MASK_TYPES) throw new Error('too many call types for a bit mask')
    const size = this.quarters().length
    const key = JSON.stringify(scopeGroups)
    if (this.masks?.key === key) return this.masks.masks
    const masks = new Uint32Array(size)
    scopeGroups.forEach((scopes, t) => {
      const calls = this.reads.membersOf(scopes)
      for (let i = 0; i < calls.length; i++) {
        const c = calls[i]!
        if (c < size) masks[c] = withBit(masks[c]!, t)
      }
    })
    this.masks = { key, groups: scopeGroups.map((g) => [...g]), masks }
    return masks
  }

  /** How many times every column was dropped so far (see dropsValue). */
  drops(): number {
    this.follow()
    return this.dropsValue
  }

  /** The items of the given key ids (one key may have several friendly names). */
  values(keyIds: readonly number[], numeric: boolean): ValueColumn {
    this.follow()
    const cacheKey = columnKey(keyIds, numeric)
    const cached = this.valueColumns.get(cacheKey)
    if (cached) return cached.col
    const col = emptyColumn(numeric)
    this.readItems(keyIds, numeric, null, col)
    this.valueColumns.set(cacheKey, { keyIds: [...keyIds], numeric, col })
    return col
  }

  /**
   * The items of calls lo..hi only, when the key's column is not kept: a first page's window
   * asks about a few hundred calls, and reading the whole column for them (~1 s for a key
   * of 1,000,000 items, a pass over every item) would sit on the keystroke. Not kept.
   */
  valuesWithin(keyIds: readonly number[], numeric: boolean, span: CallSpan): ValueColumn {
    this.follow()
    const cached = this.valueColumns.get(columnKey(keyIds, numeric))
    if (cached) return cached.col
    const col = emptyColumn(numeric)
    this.readItems(keyIds, numeric, span, col)
    return col
  }

  /**
   * A key's column read a piece of `piece` call ids at a time, for a warm-up between requests
   * (search-warm-up.ts): each call of the step reads one piece ('reading' while more are left).
   * 'kept' once every piece was read at one data version (or the column got read whole
   * meanwhile); 'dropped' unkept when the data changed in between (a piece read before the
   * change could be stale). Exact as `values` is: the same items, read in call order.
   */
  valuesInPieces(keyIds: readonly number[], numeric: boolean, piece: number): () => 'reading' | 'kept' | 'dropped' {
    const ids = this.quarters().length
    const start = this.builtAt!
    const cacheKey = columnKey(keyIds, numeric)
    const col = emptyColumn(numeric)
    let next = 0
    return () => {
      this.follow()
      if (this.valueColumns.has(cacheKey)) return 'kept'
      if (!sameVersion(start, this.builtAt!)) return 'dropped'
      const hi = Math.min(ids - 1, next + piece - 1)
      if (next <= hi) this.readItems(keyIds, numeric, { lo: next, hi }, col)
      next = hi + 1
      if (next < ids) return 'reading'
      this.valueColumns.set(cacheKey, { keyIds: [...keyIds], numeric, col: compacted(col) })
      return 'kept'
    }
  }

  /** Appends the items of `keyIds` (all, of the calls `since`, or of a span) to `col`. */
  private readItems(keyIds: readonly number[], numeric: boolean, since: Since | CallSpan | null, col: ValueColumn): void {
    if (numeric) {
      const { calls, nums } = this.reads.numericItems(keyIds, since)
      append(col, calls, null, nums)
    } else {
      const { calls, values } = this.reads.textItems(keyIds, since)
      append(col, calls, values, null)
    }
  }
}
