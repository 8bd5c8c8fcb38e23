import type Database from 'better-sqlite3'

/** Facet days are folded from quarter hours: every zone offset in use is a multiple of 15 minutes. */
export const QUARTER_MS = 15 * 60_000
/** In `CallColumns.quarters()`: no call has this id. */
export const NO_CALL = -0x80000000
/** One bit per call type in `typeMasks`; more types use the SQL path. */
export const MAX_MASK_TYPES = 32

const COMMA = 44
const MINUS = 45

/**
 * Integers from SQLite's `group_concat` (comma-separated, no spaces), into a typed array.
 * Moving a million values out of SQLite as one string costs ~50 ms; as rows, ~200 ms
 * (`pluck`) to ~1 s (two columns), because the driver builds a JS value per cell.
 */
export function parseIntList(text: string | null | undefined): Int32Array {
  if (!text) return new Int32Array(0)
  // Every value takes at least two characters but the last: an upper bound, cut at the end.
  const out = new Int32Array((text.length >> 1) + 1)
  let k = 0
  let v = 0
  let neg = false
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i)
    if (ch === COMMA) {
      out[k++] = neg ? -v : v
      v = 0
      neg = false
    } else if (ch === MINUS) neg = true
    else v = v * 10 + (ch - 48)
  }
  out[k++] = neg ? -v : v
  return out.slice(0, k)
}

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

/** What the cache reports about its own writes (CallCache.changesSince). */
export interface ChangeSource {
  readonly db: Database.Database
  readonly generation: number
  changesSince(generation: number): { newFrom: number | null; touched: number[] } | null
}

const QUARTER_SQL = `CASE WHEN call_at >= 0 THEN call_at / ${QUARTER_MS} ELSE (call_at - ${QUARTER_MS - 1}) / ${QUARTER_MS} END`

/** Room for index `need`, doubling, new slots set to `fill`. */
function grown<T extends Int32Array | Uint32Array | Float64Array>(a: T, need: number, make: (n: number) => T, fill: number): T {
  if (need < a.length) return a
  const b = make(Math.max(need + 1, a.length * 2))
  b.set(a)
  b.fill(fill, a.length)
  return b
}

/**
 * Per-call facet columns kept in memory: the quarter hour of every call (by id), which
 * single-type scopes returned it (a bit per type), and the items of the analysis keys asked
 * about. A facet over many matches counts the match list against them in one pass, instead
 * of SQLite testing every row of three tables against a match set it builds three times.
 *
 * After this connection's own writes (a sync in progress) only the calls they added or
 * changed are read again, from the cache's change journal; after another connection's
 * write (PRAGMA data_version) or a clear, everything is.
 */
export class CallColumns {
  private generation = Number.NaN
  private dataVersion = Number.NaN
  private quarterById: Int32Array | null = null
  private idsByDate: Int32Array | null = null
  private masks: { key: string; groups: readonly (readonly number[])[]; masks: Uint32Array } | null = null
  private readonly valueColumns = new Map<string, { keyIds: string; numeric: boolean; col: ValueColumn }>()

  constructor(
    private readonly cache: ChangeSource,
    private readonly currentDataVersion: () => number
  ) {}

  private get db(): Database.Database {
    return this.cache.db
  }

  private dropAll(): void {
    this.idsByDate = null
    this.quarterById = null
    this.masks = null
    this.valueColumns.clear()
  }

  private check(): void {
    const generation = this.cache.generation
    const dataVersion = this.currentDataVersion()
    if (generation === this.generation && dataVersion === this.dataVersion) return
    const delta = dataVersion === this.dataVersion && this.quarterById !== null ? this.cache.changesSince(this.generation) : null
    this.generation = generation
    this.dataVersion = dataVersion
    if (delta === null) this.dropAll()
    else if (delta.newFrom !== null || delta.touched.length > 0) this.apply(delta.newFrom, delta.touched)
  }

  /** Reads again the calls from `newFrom` on and the `touched` ones, in every column built. */
  private apply(newFrom: number | null, touched: readonly number[]): void {
    // Where new or moved calls fall in the date order is cheaper to read again than to merge.
    this.idsByDate = null
    const json = JSON.stringify(touched)
    const from = newFrom ?? Number.MAX_SAFE_INTEGER
    const maxId = (this.db.prepare('SELECT coalesce(max(id), 0) FROM calls').pluck().get() as number) || 0
    const quarters = grown(this.quarterById!, maxId, (n) => new Int32Array(n), NO_CALL)
    const row = this.db
      .prepare(
        `SELECT group_concat(id), group_concat(${QUARTER_SQL}) FROM calls WHERE id >= ? OR id IN (SELECT value FROM json_each(?))`
      )
      .raw(true)
      .get(from, json) as [string | null, string | null]
    const ids = parseIntList(row[0])
    const qs = parseIntList(row[1])
    for (let i = 0; i < ids.length; i++) quarters[ids[i]!] = qs[i]!
    this.quarterById = quarters
    if (this.masks) {
      const masks = grown(this.masks.masks, quarters.length - 1, (n) => new Uint32Array(n), 0)
      for (const id of ids) masks[id] = 0
      const groupOf = new Map<number, number>()
      this.masks.groups.forEach((scopes, t) => scopes.forEach((sc) => groupOf.set(sc, t)))
      const pairs = this.db
        .prepare('SELECT call, scope FROM scope_members WHERE call >= ? OR call IN (SELECT value FROM json_each(?))')
        .raw(true)
        .all(from, json) as Array<[number, number]>
      for (const [call, scope] of pairs) {
        const t = groupOf.get(scope)
        if (t !== undefined) masks[call] = (masks[call]! | ((1 << t) >>> 0)) >>> 0
      }
      this.masks = { ...this.masks, masks }
    }
    const changed = new Set(touched)
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
      const where = `key_id IN (${entry.keyIds}) AND (call >= ? OR call IN (SELECT value FROM json_each(?)))`
      this.readValues(entry.numeric, where, [from, json], col)
    }
  }

  /** Every call id in (call_at, call_id) order, ascending: offsets in date order for deep jumps. */
  byDate(): Int32Array {
    this.check()
    if (this.idsByDate) return this.idsByDate
    this.idsByDate = parseIntList(
      this.db.prepare('SELECT group_concat(id) FROM (SELECT id FROM calls INDEXED BY calls_by_date ORDER BY call_at, call_id)').pluck().get() as string | null
    )
    return this.idsByDate
  }

  /** Quarter hour (⌊call_at / 15 min⌋) by call id; NO_CALL where no call has the id. */
  quarters(): Int32Array {
    this.check()
    if (this.quarterById) return this.quarterById
    const row = this.db
      .prepare(`SELECT max(id), group_concat(id), group_concat(${QUARTER_SQL}) FROM calls`)
      .raw(true)
      .get() as [number | null, string | null, string | null]
    const ids = parseIntList(row[1])
    const quarters = parseIntList(row[2])
    const out = new Int32Array((row[0] ?? 0) + 1).fill(NO_CALL)
    for (let i = 0; i < ids.length; i++) out[ids[i]!] = quarters[i]!
    this.quarterById = out
    return out
  }

  /** Bit t of a call's mask: a scope in `scopeGroups[t]` returned it. At most MAX_MASK_TYPES groups. */
  typeMasks(scopeGroups: readonly (readonly number[])[]): Uint32Array {
    if (scopeGroups.length > MAX_MASK_TYPES) throw new Error('too many call types for a bit mask')
    const size = this.quarters().length
    const key = JSON.stringify(scopeGroups)
    if (this.masks?.key === key) return this.masks.masks
    const masks = new Uint32Array(size)
    scopeGroups.forEach((scopes, t) => {
      const list = scopes.map((sc) => String(Math.trunc(sc))).join(',')
      const calls = parseIntList(this.db.prepare(`SELECT group_concat(call) FROM scope_members WHERE scope IN (${list})`).pluck().get() as string | null)
      const bit = (1 << t) >>> 0
      for (let i = 0; i < calls.length; i++) {
        const c = calls[i]!
        if (c < size) masks[c] = (masks[c]! | bit) >>> 0
      }
    })
    this.masks = { key, groups: scopeGroups.map((g) => [...g]), masks }
    return masks
  }

  /** The items of the given key ids (one key may have several friendly names). */
  values(keyIds: readonly number[], numeric: boolean): ValueColumn {
    this.check()
    const list = keyIds.map((k) => String(Math.trunc(k))).join(',')
    const cacheKey = `${numeric ? 'n' : 't'}${list}`
    const cached = this.valueColumns.get(cacheKey)
    if (cached) return cached.col
    const col: ValueColumn = { length: 0, calls: new Int32Array(0), codes: numeric ? null : new Int32Array(0), dict: [], nums: numeric ? new Float64Array(0) : null, holes: 0 }
    this.readValues(numeric, `key_id IN (${list})`, [], col)
    this.valueColumns.set(cacheKey, { keyIds: list, numeric, col })
    return col
  }

  /** Appends the items `where` selects to `col`. */
  private readValues(numeric: boolean, where: string, params: unknown[], col: ValueColumn): void {
    if (numeric) {
      // NULLs would be skipped by group_concat and shift the list: '' stands for them; 17
      // digits give back the stored double exactly (SQLite's own text form keeps 15).
      const row = this.db
        .prepare(`SELECT group_concat(call), group_concat(CASE WHEN value_num IS NULL THEN '' ELSE printf('%.17g', value_num) END, ',') FROM analysis WHERE ${where}`)
        .raw(true)
        .get(...params) as [string | null, string | null]
      const calls = parseIntList(row[0])
      const parts = row[1] === null ? [] : row[1].split(',')
      const nums = new Float64Array(calls.length)
      for (let i = 0; i < calls.length; i++) nums[i] = parts[i] === '' || parts[i] === undefined ? Number.NaN : Number(parts[i])
      append(col, calls, null, nums)
      return
    }
    // Joined by the unit separator; a value holding one splits into more parts than there
    // are items, and then the rows are read one by one.
    const row = this.db
      .prepare(`SELECT group_concat(call), group_concat(value, char(31)) FROM analysis WHERE ${where}`)
      .raw(true)
      .get(...params) as [string | null, string | null]
    let calls = parseIntList(row[0])
    let values = row[1] === null ? [] : row[1].split('\u001f')
    if (values.length !== calls.length) {
      const rows = this.db.prepare(`SELECT call, value FROM analysis WHERE ${where}`).raw(true).all(...params) as Array<[number, string]>
      calls = Int32Array.from(rows, (r) => r[0])
      values = rows.map((r) => r[1])
    }
    append(col, calls, values, null)
  }
}

const dictIndex = new WeakMap<ValueColumn, Map<string, number>>()

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
