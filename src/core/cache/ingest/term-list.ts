import Database from 'better-sqlite3'
import { makeFtsCharProbe } from './short-prefixes'

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

/**
 * A function adding the terms of a text, as calls_fts's tokenizer splits and folds it, to a
 * set. Each character is asked of the tokenizer once (makeFtsCharProbe, as the short-prefix
 * index does); a word whose characters all fold to themselves (the folded text the index is
 * given, nearly always) is a slice of the text.
 */
export function makeTermSplitter(probe: (ch: string) => string | null): (text: string, into: Set<string>) => void {
  // Per BMP character: -2 not asked yet, -1 a separator, 0 a letter folding to itself, 1 one
  // folding to another (kept in `folded`). Astral characters in a map, by code point.
  const bmp = new Int8Array(0x10000).fill(-2)
  const folded = new Map<number, string>()
  const astral = new Map<number, string | null>()
  const kindOf = (c: number): number => {
    let k = bmp[c]!
    if (k === -2) {
      const ch = String.fromCharCode(c)
      const f = probe(ch)
      k = f === null ? -1 : f === ch ? 0 : 1
      if (k === 1) folded.set(c, f!)
      bmp[c] = k
    }
    return k
  }
  const astralOf = (cp: number): string | null => {
    let f = astral.get(cp)
    if (f === undefined) {
      f = probe(String.fromCodePoint(cp))
      astral.set(cp, f)
    }
    return f
  }
  // A word with a character that folds to another, or an astral one: built character by character.
  const slow = (word: string): string => {
    let out = ''
    for (const ch of word) {
      const c = ch.codePointAt(0)!
      out += c > 0xffff ? astralOf(c)! : bmp[c] === 1 ? folded.get(c)! : ch
    }
    return out
  }
  return function split(text: string, into: Set<string>): void {
    let start = -1
    let plain = true
    const n = text.length
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i)
      // -1 a separator, 0 a letter folding to itself, 1 one that does not (or an astral one).
      let k: number
      let width = 1
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        k = astralOf(text.codePointAt(i)!) === null ? -1 : 1
        width = 2
      } else k = kindOf(c)
      if (k < 0) {
        if (start >= 0) into.add(plain ? text.slice(start, i) : slow(text.slice(start, i)))
        start = -1
      } else {
        if (start < 0) {
          start = i
          plain = true
        }
        if (k === 1) plain = false
      }
      i += width - 1
    }
    if (start >= 0) into.add(plain ? text.slice(start) : slow(text.slice(start)))
  }
}

let shared: ((text: string, into: Set<string>) => void) | null = null

/** This thread's splitter (its probe opened on first use). */
function splitTerms(text: string, into: Set<string>): void {
  shared ??= makeTermSplitter(makeFtsCharProbe(Database))
  shared(text, into)
}

/** Terms remembered as stored, at most: past it the memory starts over (a new term costs one INSERT OR IGNORE). */
const KNOWN_MAX = 200_000

/**
 * The term list's side of a writer's transaction: the terms of the rows it indexes, added
 * to the list in one statement with them. Terms it stored are remembered, so a transaction
 * of words seen before writes nothing; a rolled-back transaction makes it forget them all.
 */
export class KeptTerms {
  private readonly pending = new Set<string>()
  private readonly known = new Set<string>()
  private readonly insert: Database.Statement<[string]>

  constructor(db: Database.Database) {
    this.insert = db.prepare<[string]>(`INSERT OR IGNORE INTO ${TERMS_TABLE} (term) SELECT value FROM json_each(?)`)
  }

  /** The terms of one row's indexed texts. */
  add(texts: readonly string[]): void {
    for (const t of texts) splitTerms(t, this.pending)
  }

  /** Adds the new terms to the list (inside the transaction that indexes their rows). */
  write(): void {
    if (this.pending.size === 0) return
    const fresh: string[] = []
    for (const t of this.pending) if (!this.known.has(t)) fresh.push(t)
    this.pending.clear()
    if (fresh.length === 0) return
    this.insert.run(JSON.stringify(fresh))
    if (this.known.size + fresh.length > KNOWN_MAX) this.known.clear()
    for (const t of fresh) this.known.add(t)
  }

  /** After a rollback or the list emptied: nothing is known stored any more. */
  forget(): void {
    this.pending.clear()
    this.known.clear()
  }
}
