import type Database from 'better-sqlite3'
import { encodeList, hasAnalysisLists, valueDictionary, type ValueDictionary } from '../analysis-lists'
import { BulkInsert } from './bulk'

/** One analysis item as the writer stores and counts it. */
export interface StoredItem {
  keyId: number
  value: string
  num: number | null
}

/** Where the writer puts a call's analysis items, and reads back the ones it replaces. */
export interface ItemStore {
  /** A new call's items, in the table after flush(). */
  put(call: number, items: readonly StoredItem[]): void
  flush(): void
  discard(): void
  /** The stored items of a call, in order. */
  stored(call: number): StoredItem[]
  delete(call: number): void
  /** Forgets ids learnt (a rollback or a clear). */
  forget(): void
}

/** Value ids remembered by the writer before it starts over. */
const VALUE_CACHE = 200_000

/** Schema 19 on: one list of dictionary ids per call with items (analysis-lists.ts). */
class ListStore implements ItemStore {
  private readonly lists: BulkInsert
  private readonly read: Database.Statement<[number], string>
  private readonly remove: Database.Statement<[number]>
  private readonly valueInsert: Database.Statement<[number, string, number | null]>
  private readonly valueFind: Database.Statement<[number, string], number>
  /** key id → value → value id; emptied when it grows past VALUE_CACHE. */
  private readonly ids = new Map<number, Map<string, number>>()
  private cached = 0
  private readonly dictionary: ValueDictionary

  constructor(db: Database.Database) {
    this.lists = new BulkInsert(db, 'INSERT INTO analysis_lists (call, items)', 2, 500)
    this.read = db.prepare<[number], string>('SELECT items FROM analysis_lists WHERE call = ?').pluck()
    this.remove = db.prepare<[number]>('DELETE FROM analysis_lists WHERE call = ?')
    this.valueInsert = db.prepare<[number, string, number | null]>(
      'INSERT INTO analysis_values (key_id, value, value_num) VALUES (?, ?, ?)'
    )
    this.valueFind = db.prepare<[number, string], number>('SELECT id FROM analysis_values WHERE key_id = ? AND value = ?').pluck()
    this.dictionary = valueDictionary(db)
  }

  put(call: number, items: readonly StoredItem[]): void {
    if (items.length === 0) return
    this.lists.put(call)
    this.lists.put(encodeList(items.map((i) => this.valueId(i))))
  }

  flush(): void {
    this.lists.flush()
  }

  discard(): void {
    this.lists.discard()
  }

  stored(call: number): StoredItem[] {
    const list = this.read.get(call)
    if (list === undefined) return []
    const d = this.dictionary
    return d.ids(list).map((v) => ({ keyId: d.keyOf[v]!, value: d.valueOf[v]!, num: d.numOf[v] ?? null }))
  }

  delete(call: number): void {
    this.remove.run(call)
  }

  forget(): void {
    this.ids.clear()
    this.cached = 0
    this.dictionary.forget()
  }

  /** The dictionary id of a (key, value) pair, added on first sight. */
  private valueId(item: StoredItem): number {
    let byValue = this.ids.get(item.keyId)
    if (!byValue) this.ids.set(item.keyId, (byValue = new Map()))
    let id = byValue.get(item.value)
    if (id === undefined) {
      id = this.valueFind.get(item.keyId, item.value)
      if (id === undefined) id = Number(this.valueInsert.run(item.keyId, item.value, item.num).lastInsertRowid)
      // Values that differ per call (free text) would grow the map without end.
      if (++this.cached > VALUE_CACHE) {
        this.ids.clear()
        this.cached = 0
        this.ids.set(item.keyId, (byValue = new Map()))
      }
      byValue.set(item.value, id)
    }
    return id
  }
}

/**
 * Schema 3–18: one row per item. Kept so that a cache opened at an older version (benchmarks
 * measuring the layout before, tests of older migrations) is written as it was.
 */
class RowStore implements ItemStore {
  private readonly rows: BulkInsert
  private readonly read: Database.Statement<[number], StoredItem>
  private readonly remove: Database.Statement<[number]>

  constructor(db: Database.Database) {
    this.rows = new BulkInsert(db, 'INSERT INTO analysis (key_id, call, ord, value, value_num)', 5, 500)
    this.read = db.prepare<[number], StoredItem>(
      'SELECT key_id AS keyId, value, value_num AS num FROM analysis WHERE call = ? ORDER BY ord'
    )
    this.remove = db.prepare<[number]>('DELETE FROM analysis WHERE call = ?')
  }

  put(call: number, items: readonly StoredItem[]): void {
    let ord = 0
    for (const i of items) {
      this.rows.put(i.keyId)
      this.rows.put(call)
      this.rows.put(ord++)
      this.rows.put(i.value)
      this.rows.put(i.num)
    }
  }

  flush(): void {
    this.rows.flush()
  }

  discard(): void {
    this.rows.discard()
  }

  stored(call: number): StoredItem[] {
    return this.read.all(call)
  }

  delete(call: number): void {
    this.remove.run(call)
  }

  forget(): void {}
}

/** The store the schema of `db` has. */
export function itemStoreFor(db: Database.Database): ItemStore {
  return hasAnalysisLists(db) ? new ListStore(db) : new RowStore(db)
}
