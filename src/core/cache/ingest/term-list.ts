import type Database from 'better-sqlite3'
import type { TermSink } from './short-prefixes'

/**
 * The kept term list (schema 21 on): every term calls_fts has held, one row each, in binary
 * order. The search expands the last word typed as a prefix (catalog.ts) by a range read of
 * it, microseconds; fts5vocab computes each listed term's document count, i.e. reads the
 * term's whole doclist (16–32 ms for a word in half of 1,000,000 calls, over 100 ms for
 * "i"), and that read was most of the first query after opening.
 *
 * Terms are only ever added: a term no longer in the index (its calls changed or left)
 * stays until the index is emptied, and expanding to it matches nothing.
 */
export const TERMS_TABLE = 'calls_terms'

export const TERMS_SQL = `CREATE TABLE IF NOT EXISTS ${TERMS_TABLE} (term TEXT PRIMARY KEY) WITHOUT ROWID`

/** Whether the cache keeps the term list (older schemas expand prefixes through fts5vocab). */
export function hasTermList(db: Database.Database): boolean {
  return db.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(TERMS_TABLE) !== undefined
}

/**
 * Adds every term of the index to the list: one read of the whole index (fts5vocab in term
 * order, so the B-tree is appended to). For migration 21 and after a whole index was built
 * (reindexAll, a bulk pull's index build): cheaper there than splitting the text again.
 */
export function fillTermList(db: Database.Database): void {
  if (hasTermList(db)) db.exec(`INSERT OR IGNORE INTO ${TERMS_TABLE} (term) SELECT term FROM calls_fts_vocab`)
}

/** Empties the list with the index it lists (the cache's calls deleted). */
export function clearTermList(db: Database.Database): void {
  if (hasTermList(db)) db.exec(`DELETE FROM ${TERMS_TABLE}`)
}

/** FNV-1a over UTF-16 code units, as TermTable hashes a word (and the prefix scan a stretch: short-prefixes.ts). */
const FNV_OFFSET = 0x811c9dc5 | 0
const FNV_PRIME = 0x01000193

function hashOf(word: string): number {
  let h = FNV_OFFSET
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), FNV_PRIME)
  return h
}

/**
 * The distinct terms met, as an open-addressing hash table looked up by a stretch of a text
 * and its hash: a word met before costs no string (the scan feeding it runs on every character
 * of every call ingested; a Set of slices cost several µs a call, docs/perf-log.md). New terms
 * are also queued until taken.
 */
export class TermTable implements TermSink {
  private keys: Array<string | undefined> = new Array<string | undefined>(1024)
  private hashes = new Int32Array(1024)
  private size = 0
  private fresh: string[] = []

  /** `max`: terms held at most; past it the table starts over (a term is then met as new once more). */
  constructor(private readonly max = 200_000) {}

  /** text[start, end), whose hash is `h`: queued if not met before. */
  addSlice(text: string, start: number, end: number, h: number): void {
    const mask = this.keys.length - 1
    const len = end - start
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const k = this.keys[slot]
      if (k === undefined) break
      if (this.hashes[slot] !== h || k.length !== len) continue
      let same = true
      for (let i = 0; i < len; i++) {
        if (k.charCodeAt(i) !== text.charCodeAt(start + i)) {
          same = false
          break
        }
      }
      if (same) return
    }
    this.insert(text.slice(start, end), h)
  }

  /** A whole word (one the splitter had to build): queued if not met before. */
  addWord(word: string): void {
    this.addSlice(word, 0, word.length, hashOf(word))
  }

  /** The terms met for the first time since the last take. */
  take(): string[] {
    const out = this.fresh
    this.fresh = []
    return out
  }

  /** Forgets every term met, queued ones too. */
  clear(): void {
    this.keys = new Array<string | undefined>(1024)
    this.hashes = new Int32Array(1024)
    this.size = 0
    this.fresh = []
  }

  private insert(word: string, h: number): void {
    this.fresh.push(word)
    if (this.size >= this.max) {
      // Started over: the queued terms stay queued.
      const fresh = this.fresh
      this.clear()
      this.fresh = fresh
    }
    if ((this.size + 1) * 2 > this.keys.length) this.grow()
    const mask = this.keys.length - 1
    let slot = h & mask
    while (this.keys[slot] !== undefined) slot = (slot + 1) & mask
    this.keys[slot] = word
    this.hashes[slot] = h
    this.size++
  }

  private grow(): void {
    const keys = this.keys
    const hashes = this.hashes
    this.keys = new Array<string | undefined>(keys.length * 2)
    this.hashes = new Int32Array(keys.length * 2)
    const mask = this.keys.length - 1
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]
      if (k === undefined) continue
      let slot = hashes[i]! & mask
      while (this.keys[slot] !== undefined) slot = (slot + 1) & mask
      this.keys[slot] = k
      this.hashes[slot] = hashes[i]!
    }
  }
}

/**
 * The term list's side of a writer's transaction: the terms of the rows it indexes, added to
 * the list in one statement with them. The rows' words reach `met` from the scan that finds
 * their short prefixes (shortPrefixesOf with `met`: one pass over each text for both). Terms
 * met before are remembered (TermTable), so a transaction of words seen before writes
 * nothing; a rolled-back transaction makes it forget them all (they may not be stored).
 */
export class KeptTerms {
  readonly met = new TermTable()
  private readonly insert: Database.Statement<[string]>

  constructor(db: Database.Database) {
    this.insert = db.prepare<[string]>(`INSERT OR IGNORE INTO ${TERMS_TABLE} (term) SELECT value FROM json_each(?)`)
  }

  /** Adds the new terms to the list (inside the transaction that indexes their rows). */
  write(): void {
    const fresh = this.met.take()
    if (fresh.length > 0) this.insert.run(JSON.stringify(fresh))
  }

  /** After a rollback or the list emptied: nothing is known stored any more. */
  forget(): void {
    this.met.clear()
  }
}
