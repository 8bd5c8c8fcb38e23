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

/** One analysis key's items in table order: the call of each, and its value as a code or a number. */
export interface ValueColumn {
  calls: Int32Array
  /** Text keys: index into `dict` per item. */
  codes: Int32Array | null
  dict: string[]
  /** Numeric keys: the numeric value per item, NaN where the value is not a number. */
  nums: Float64Array | null
}

/**
 * Per-call facet columns, kept in memory for one state of the data: the quarter hour of
 * every call (by id), which single-type scopes returned it (a bit per type), and the items
 * of the analysis keys asked about. A facet over many matches then counts the match list
 * against them in one pass, instead of SQLite testing every row of three tables against a
 * match set it builds three times. Everything is dropped when the stamp moves (any write).
 */
export class CallColumns {
  private stamp = Number.NaN
  private quarterById: Int32Array | null = null
  private masks: { key: string; masks: Uint32Array } | null = null
  private readonly valueColumns = new Map<string, ValueColumn>()

  constructor(
    private readonly db: Database.Database,
    private readonly currentStamp: () => number
  ) {}

  private check(): void {
    const s = this.currentStamp()
    if (s === this.stamp) return
    this.stamp = s
    this.quarterById = null
    this.masks = null
    this.valueColumns.clear()
  }

  /** Quarter hour (⌊call_at / 15 min⌋) by call id; NO_CALL where no call has the id. */
  quarters(): Int32Array {
    this.check()
    if (this.quarterById) return this.quarterById
    const row = this.db
      .prepare(`SELECT max(id), group_concat(id), group_concat(CASE WHEN call_at >= 0 THEN call_at / ${QUARTER_MS} ELSE (call_at - ${QUARTER_MS - 1}) / ${QUARTER_MS} END) FROM calls`)
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
      const list = scopes.map((s) => String(Math.trunc(s))).join(',')
      const calls = parseIntList(this.db.prepare(`SELECT group_concat(call) FROM scope_members WHERE scope IN (${list})`).pluck().get() as string | null)
      const bit = (1 << t) >>> 0
      for (let i = 0; i < calls.length; i++) {
        const c = calls[i]!
        if (c < size) masks[c] = (masks[c]! | bit) >>> 0
      }
    })
    this.masks = { key, masks }
    return masks
  }

  /** The items of the given key ids (one key may have several friendly names). */
  values(keyIds: readonly number[], numeric: boolean): ValueColumn {
    this.check()
    const list = keyIds.map((k) => String(Math.trunc(k))).join(',')
    const key = `${numeric ? 'n' : 't'}${list}`
    const cached = this.valueColumns.get(key)
    if (cached) return cached
    let col: ValueColumn
    if (numeric) {
      // NULLs would be skipped by group_concat and shift the list: '' stands for them; 17
      // digits give back the stored double exactly (SQLite's own text form keeps 15).
      const row = this.db
        .prepare(`SELECT group_concat(call), group_concat(CASE WHEN value_num IS NULL THEN '' ELSE printf('%.17g', value_num) END, ',') FROM analysis WHERE key_id IN (${list})`)
        .raw(true)
        .get() as [string | null, string | null]
      const calls = parseIntList(row[0])
      const parts = row[1] === null ? [] : row[1].split(',')
      const nums = new Float64Array(calls.length)
      for (let i = 0; i < calls.length; i++) nums[i] = parts[i] === '' || parts[i] === undefined ? Number.NaN : Number(parts[i])
      col = { calls, codes: null, dict: [], nums }
    } else {
      // Joined by the unit separator; a value holding one splits into more parts than there
      // are items, and then the rows are read one by one.
      const row = this.db
        .prepare(`SELECT group_concat(call), group_concat(value, char(31)) FROM analysis WHERE key_id IN (${list})`)
        .raw(true)
        .get() as [string | null, string | null]
      const calls = parseIntList(row[0])
      const parts = row[1] === null ? [] : row[1].split('\u001f')
      col = parts.length === calls.length ? textColumn(calls, parts) : this.valuesByRows(list)
    }
    this.valueColumns.set(key, col)
    return col
  }

  /** Values holding the separator (never seen in practice): read row by row instead. */
  private valuesByRows(list: string): ValueColumn {
    const rows = this.db.prepare(`SELECT call, value FROM analysis WHERE key_id IN (${list})`).raw(true).all() as Array<[number, string]>
    return textColumn(
      Int32Array.from(rows, (r) => r[0]),
      rows.map((r) => r[1])
    )
  }
}

function textColumn(calls: Int32Array, values: readonly string[]): ValueColumn {
  const dict: string[] = []
  const index = new Map<string, number>()
  const codes = new Int32Array(values.length)
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    let c = index.get(v)
    if (c === undefined) {
      c = dict.length
      dict.push(v)
      index.set(v, c)
    }
    codes[i] = c
  }
  return { calls, codes, dict, nums: null }
}
