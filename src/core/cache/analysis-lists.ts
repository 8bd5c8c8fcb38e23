import type Database from 'better-sqlite3'

/**
 * The analysis items of a call as one short text (schema 19 on, docs/cache.md "Analysis").
 *
 * Each distinct (key, value) pair is stored once in `analysis_values`; a call's items are
 * the ids of its pairs, in the order the service sent them, each written as one or two
 * Unicode code points, in one row of `analysis_lists` per call that has items. Ten items
 * take about twenty bytes instead of ten rows of about twenty bytes each.
 *
 * Text, not a blob of varints: a `group_concat` moves a million lists out of SQLite as one
 * string (column-reads.ts), where a blob per row costs a Buffer per row. The code points
 * start above ',' (the separator such reads use), skip the surrogates (not valid UTF-8), and
 * the first 981,000 or so ids take one code point (one byte up to id 83, two up to 2,003);
 * later ids take a pair: a lead from plane 15 and a tail from plane 16, planes no single id
 * uses, so a pair never reads as singles and a list never needs a separator.
 */

/** The lowest code point a single id takes: the one after ','. */
const BASE = 0x2d
const SURROGATES = 0xd800
const SURROGATES_END = 0xe000
const LEAD = 0xf0000
const TAIL = 0x100000
/** The highest id written as one code point. */
export const SINGLE_MAX = LEAD - (SURROGATES_END - SURROGATES) - BASE

/** An id as its code points. */
export function idCode(id: number): string {
  if (!Number.isInteger(id) || id < 1) throw new RangeError(`analysis value id ${id}`)
  if (id <= SINGLE_MAX) {
    const cp = id - 1 + BASE
    return String.fromCodePoint(cp < SURROGATES ? cp : cp + (SURROGATES_END - SURROGATES))
  }
  const n = id - SINGLE_MAX - 1
  if (n >= 0x1_0000_0000) throw new RangeError(`analysis value id ${id}`)
  return String.fromCodePoint(LEAD + Math.floor(n / 0x10000), TAIL + (n % 0x10000))
}

/** A call's value ids, in order, as its list text. */
export function encodeList(ids: readonly number[]): string {
  let s = ''
  for (const id of ids) s += idCode(id)
  return s
}

/**
 * Calls `each` with every id of lists joined by ',' (one list, or a `group_concat` of many),
 * in order, with the index of its list (no array built: a facet read decodes millions). A
 * closure with no free variables (its constants are the module's, written out): its source
 * text goes to the index build's worker thread (deferred-index.ts).
 */
export function forEachJoinedId(joined: string, each: (list: number, id: number) => void): void {
  // BASE, the surrogates' width, LEAD, TAIL and SINGLE_MAX, as above.
  const base = 0x2d
  const gap = 0x800
  const lead = 0xf0000
  const tail0 = 0x100000
  const singleMax = 980947
  let list = 0
  for (let i = 0; i < joined.length; i++) {
    let cp = joined.charCodeAt(i)
    if (cp === 0x2c) {
      list++
      continue
    }
    if (cp >= 0xd800 && cp < 0xdc00) cp = 0x10000 + ((cp - 0xd800) << 10) + (joined.charCodeAt(++i) - 0xdc00)
    if (cp < 0xd800) each(list, cp - base + 1)
    else if (cp < lead) each(list, cp - gap - base + 1)
    else {
      let tail = joined.charCodeAt(++i)
      tail = 0x10000 + ((tail - 0xd800) << 10) + (joined.charCodeAt(++i) - 0xdc00)
      each(list, singleMax + 1 + (cp - lead) * 0x10000 + (tail - tail0))
    }
  }
}

/** forEachJoinedId's source, for a worker thread. */
export const FOR_EACH_JOINED_ID_SOURCE = forEachJoinedId.toString()

/** Calls `each` with every id of one list, in order. */
export function forEachId(list: string, each: (id: number) => void): void {
  forEachJoinedId(list, (_, id) => each(id))
}

/** A list's ids as an array. */
export function decodeList(list: string): number[] {
  const out: number[] = []
  forEachId(list, (id) => out.push(id))
  return out
}

/** The two tables of schema 19 (the dictionary's ids are never reused: AUTOINCREMENT). */
export const ANALYSIS_LISTS_SQL = `
  CREATE TABLE analysis_values (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    key_id INTEGER NOT NULL,
    value TEXT NOT NULL,
    value_num REAL,
    UNIQUE (key_id, value)
  );
  CREATE TABLE analysis_lists (
    call INTEGER PRIMARY KEY,
    items TEXT NOT NULL
  );
`

/**
 * Ids missing from a dictionary that `need` reads by id; more, and it reads every row above
 * the highest read (a page's items are at most a few thousand).
 */
export const SPARSE_READ_MAX = 2000

/**
 * The dictionary of one connection, read as far as it needs: ids only grow, so the rows
 * above the highest id read are all that can be new; a missing id below it (read before a
 * rollback took it back on this connection) reads everything again. A page's items read
 * only their own ids (`need`): the first page on a connection just opened does not wait for
 * every value.
 */
export class ValueDictionary {
  keyOf: number[] = []
  valueOf: string[] = []
  numOf: Array<number | null> = []
  private top = 0
  private readonly above: Database.Statement<[number]>
  private byIds: Database.Statement<[string]> | null = null

  constructor(private readonly db: Database.Database) {
    this.above = db.prepare<[number]>('SELECT id, key_id, value, value_num FROM analysis_values WHERE id > ? ORDER BY id').raw()
  }

  /** Makes every id of `ids` readable: those not read yet by id when they are few, else by refresh(). */
  need(ids: Iterable<number>): void {
    const missing = new Set<number>()
    for (const id of ids) if (this.valueOf[id] === undefined) missing.add(id)
    if (missing.size === 0) return
    if (missing.size > SPARSE_READ_MAX) this.refresh()
    else {
      this.byIds ??= this.db
        .prepare<[string]>('SELECT id, key_id, value, value_num FROM analysis_values WHERE id IN (SELECT value FROM json_each(?))')
        .raw()
      for (const [id, key, value, num] of this.byIds.iterate(JSON.stringify([...missing])) as Iterable<
        [number, number, string, number | null]
      >) {
        this.keyOf[id] = key
        this.valueOf[id] = value
        this.numOf[id] = num
      }
    }
    for (const id of missing) if (this.valueOf[id] === undefined) this.reload(id)
  }

  /** Makes every id up to `maxId` readable; throws if one is in no row. */
  cover(maxId: number): void {
    if (maxId <= this.top) return
    this.refresh()
    if (maxId > this.top) throw new Error(`analysis value ${maxId} is not in the dictionary`)
  }

  /** Reads the rows added since the last read. */
  refresh(): void {
    for (const [id, key, value, num] of this.above.iterate(this.top) as Iterable<[number, number, string, number | null]>) {
      this.keyOf[id] = key
      this.valueOf[id] = value
      this.numOf[id] = num
      this.top = id
    }
  }

  /** Makes one id readable (after refresh(), the rare id it did not cover). */
  ensure(id: number): void {
    if (this.valueOf[id] !== undefined) return
    this.refresh()
    if (this.valueOf[id] === undefined) this.reload(id)
  }

  /** Forgets what was read (a rollback or a clear on this connection). */
  forget(): void {
    this.keyOf = []
    this.valueOf = []
    this.numOf = []
    this.top = 0
  }

  /** The ids of a list, the dictionary read far enough for all of them. */
  ids(list: string): number[] {
    const ids = decodeList(list)
    let max = 0
    for (const id of ids) if (id > max) max = id
    this.cover(max)
    for (const id of ids) this.ensure(id)
    return ids
  }

  private reload(id: number): void {
    this.forget()
    this.cover(id)
    if (this.valueOf[id] === undefined) throw new Error(`analysis value ${id} is not in the dictionary`)
  }
}

const dictionaries = new WeakMap<Database.Database, ValueDictionary>()

/** The connection's dictionary (one per connection, so every reader and the writer share it). */
export function valueDictionary(db: Database.Database): ValueDictionary {
  let d = dictionaries.get(db)
  if (d === undefined) dictionaries.set(db, (d = new ValueDictionary(db)))
  return d
}

/** Whether the schema holds the lists (version 19 on; a bench may open an older layout). */
export function hasAnalysisLists(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'analysis_lists'").get() !== undefined
}

/**
 * SQL functions over lists. `analysis_ids(id)` (an aggregate) gathers dictionary ids into a
 * set kept in JS and returns a short token naming it; `analysis_has(items, token)` is 1 when
 * the list holds one of the set's ids, `analysis_first(items, token)` the first such id or
 * NULL. The aggregate runs in an uncorrelated subquery, once per statement, so each row
 * passes only the token: passing the ids themselves cost a string of every id per row (4×
 * slower for a range over a key of a few hundred values, measured).
 */
export function registerListFunctions(db: Database.Database): void {
  /** Sets by token, the newest 256 (a statement uses its set while it runs, then never again). */
  const sets = new Map<string, Set<number>>()
  let made = 0
  const setOf = (token: unknown): Set<number> => {
    const set = sets.get(String(token))
    if (set === undefined) throw new Error(`analysis id set ${String(token)} is no longer kept`)
    return set
  }
  db.aggregate('analysis_ids', {
    start: () => [] as number[],
    step: (ids: number[], id: unknown) => {
      if (typeof id === 'number' || typeof id === 'bigint') ids.push(Number(id))
      return ids
    },
    result: (ids: number[]) => {
      const token = `ids:${++made}`
      sets.set(token, new Set(ids))
      if (sets.size > 256) sets.delete(sets.keys().next().value!)
      return token
    }
  })
  db.function('analysis_has', { deterministic: true }, (items: unknown, token: unknown) => {
    if (typeof items !== 'string' || token === null) return 0
    const set = setOf(token)
    if (set.size === 0) return 0
    let found = 0
    forEachId(items, (id) => {
      if (found === 0 && set.has(id)) found = 1
    })
    return found
  })
  db.function('analysis_first', { deterministic: true }, (items: unknown, token: unknown) => {
    if (typeof items !== 'string' || token === null) return null
    const set = setOf(token)
    let found: number | null = null
    forEachId(items, (id) => {
      if (found === null && set.has(id)) found = id
    })
    return found
  })
}

/** One item with its key's names, as records carry it. */
export interface NamedValue {
  key: string
  friendlyName: string
  value: string
}

/**
 * The items of each call of `rows` ([call, list]), named, in order. The keys are read each
 * time (a few rows): their ids are reused after a clear, which another connection may make.
 */
export function namedItems(db: Database.Database, rows: ReadonlyArray<readonly [number, string]>): Map<number, NamedValue[]> {
  const out = new Map<number, NamedValue[]>()
  if (rows.length === 0) return out
  const keys = new Map<number, [string, string]>()
  for (const [id, key, name] of db.prepare('SELECT id, key, friendly_name FROM analysis_keys').raw().all() as Array<
    [number, string, string]
  >)
    keys.set(id, [key, name])
  const d = valueDictionary(db)
  const lists = rows.map(([call, list]) => [call, decodeList(list)] as const)
  d.need(lists.flatMap(([, ids]) => ids))
  for (const [call, ids] of lists) {
    const items: NamedValue[] = []
    for (const v of ids) {
      const k = keys.get(d.keyOf[v]!)
      if (k === undefined) throw new Error(`analysis key ${d.keyOf[v]} is not stored`)
      items.push({ key: k[0], friendlyName: k[1], value: d.valueOf[v]! })
    }
    out.set(call, items)
  }
  return out
}

/**
 * The items of the keys `keyIds` in lists joined by ',' (a `group_concat(items, ',')`, with
 * `calls` the `group_concat(call)` of the same rows), in call and item order: `each` gets the
 * call and the value id.
 */
export function itemsOfKeys(
  d: ValueDictionary,
  calls: Int32Array,
  joined: string | null,
  keyIds: readonly number[],
  each: (call: number, id: number) => void
): void {
  if (joined === null) return
  d.refresh()
  const keys = new Set(keyIds)
  forEachJoinedId(joined, (list, id) => {
    d.ensure(id)
    if (keys.has(d.keyOf[id]!)) each(calls[list]!, id)
  })
}
