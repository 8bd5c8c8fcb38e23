import Database from 'better-sqlite3'

/**
 * The short-prefix index: for each call, the distinct one- and two-letter beginnings of the
 * words of its indexed text ("ka", "k" for "kalem"), as the tokens of a position-free FTS5
 * table (detail=none: a doclist of row ids per token, nothing else). It answers the first
 * keystrokes of a word ("i"*, "ka"*) as one doclist, as FTS5's own prefix index (prefix='1 2')
 * did, at a fraction of its size and write cost: that index kept every posting of every word
 * with its positions a second and a third time (measured in docs/perf-log.md). Longer prefixes
 * are FTS5's own prefix queries on calls_fts.
 *
 * The words are FTS5's: the text is split and case-folded exactly as calls_fts's tokenizer
 * splits and folds it, by asking that tokenizer once about each character seen (FtsCharProbe),
 * so a call holds a short prefix here exactly when one of its calls_fts tokens begins with it.
 */
export const SHORT_INDEX_TABLE = 'calls_fts_short'

/** The table (schema 17 on). Contentless: its tokens come from calls_fts's rows, rebuilt from them. */
export const SHORT_INDEX_SQL = `CREATE VIRTUAL TABLE ${SHORT_INDEX_TABLE} USING fts5(
          p,
          content='', contentless_delete=1, detail=none,
          tokenize='unicode61 remove_diacritics 0'
        )`

/** Whether the cache has the short-prefix index (older schemas keep FTS5's prefix index instead). */
export function hasShortIndex(db: Database.Database): boolean {
  return db.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(SHORT_INDEX_TABLE) !== undefined
}

/**
 * The short-prefix expression of a MATCH: `"ka"*` alone (one word of one or two letters,
 * code points: "ı" is one) becomes `"ka"`, the token the short-prefix index holds; anything
 * else (a phrase, a column filter, a longer prefix, several terms) is null.
 */
export function shortPrefixToken(match: string): string | null {
  return /^"[^"\s]{1,2}"\*$/u.test(match) ? match.slice(0, -1) : null
}

/**
 * How calls_fts's tokenizer treats a character that belongs to words: its folded form, and
 * whether it can begin one. The tokenizer takes a combining accent (U+0300–U+0331) into a
 * word it is in, but never begins a word with one: before a word, or alone, it separates.
 */
export interface FtsChar {
  folded: string
  starts: boolean
}

/**
 * How calls_fts's tokenizer treats one character: null when it separates words. Asked of
 * SQLite itself (a private in-memory FTS5 table with the same tokenizer), once per distinct
 * character. A closure with no free variables: its source text goes to the index build's
 * worker thread (deferred-index.ts), given SQLite's module.
 */
export function makeFtsCharProbe(Db: new (file: string) => Database.Database): (ch: string) => FtsChar | null {
  const db = new Db(':memory:')
  db.exec(`CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='unicode61 remove_diacritics 0');
    CREATE VIRTUAL TABLE probe_terms USING fts5vocab(probe, 'instance');`)
  const put = db.prepare('INSERT INTO probe (rowid, x) VALUES (1, ?)')
  const terms = db.prepare('SELECT term FROM probe_terms ORDER BY offset').pluck()
  const clear = db.prepare('DELETE FROM probe')
  const wordsOf = (text: string): string[] => {
    put.run(text)
    const words = terms.all() as string[]
    clear.run()
    return words
  }
  return function probe(ch: string): FtsChar | null {
    // Between two letters: one word of three letters when it belongs to words, two words else.
    const inside = wordsOf('x' + ch + 'x')
    if (inside.length !== 1 || inside[0]!.length <= 2) return null
    // Before a letter: one word of two when it can begin one, the letter alone else.
    const before = wordsOf(ch + 'x')
    return { folded: inside[0]!.slice(1, -1), starts: before.length === 1 && before[0]!.length > 1 }
  }
}

/**
 * Where a scan of a call's texts puts the words it met (term-list.ts's TermTable): a word
 * whose characters all fold to themselves as a stretch of the text with its FNV-1a hash over
 * UTF-16 code units, any other as the folded word built.
 */
export interface TermSink {
  addSlice(text: string, start: number, end: number, h: number): void
  addWord(word: string): void
}

/**
 * The short-prefix tokens of a call's indexed texts, space-separated: each distinct one- and
 * two-letter beginning of their words, in the order first met. Given `terms`, the same pass
 * also puts each word, split and folded as calls_fts's tokenizer does, into it: the kept term
 * list's splitter was a second scan of every character of every call ingested. A closure with
 * no free variables (see makeFtsCharProbe).
 */
export function makeShortPrefixes(
  probe: (ch: string) => { folded: string; starts: boolean } | null
): (texts: readonly string[], terms?: TermSink | null) => string {
  // Each character's letter, asked once: -1 a separator, -2 not asked yet, else its letter
  // number times four, plus one when it folds to another character, plus two when it cannot
  // begin a word (a combining accent: a separator there). Letters are numbered in the order
  // first seen, one per folded form (the tokenizer folds a code point to one code point). The
  // BMP in an array, the astral planes in a map (their letters count as folding: a word
  // holding one is built, not hashed as a stretch of the text).
  const bmp = new Int32Array(0x10000).fill(-2)
  const astral = new Map<number, number>()
  const letters: string[] = []
  const numberOf = new Map<string, number>()
  const ask = (ch: string): number => {
    const p = probe(ch)
    if (p === null) return -1
    const f = p.folded
    let k = numberOf.get(f)
    if (k === undefined) {
      k = letters.length
      letters.push(f)
      numberOf.set(f, k)
    }
    return k * 4 + (f === ch ? 0 : 1) + (p.starts ? 0 : 2)
  }
  // A word with a character that folds to another (or an astral one), folded character by character.
  const folded = (text: string, start: number, end: number): string => {
    let out = ''
    for (let i = start; i < end; i++) {
      const c = text.charCodeAt(i)
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < end && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
        out += letters[astral.get(text.codePointAt(i)!)! >> 2]!
        i++
      } else out += letters[bmp[c]! >> 2]!
    }
    return out
  }
  // The first NARROW letters (a language's alphabet and then some) key their prefixes in a
  // flat table: two letters a, b are a * NARROW + b, one letter a is NARROW * NARROW + a. A
  // call marks the keys it met with its own number, so "seen already?" is one array read
  // instead of a hash set's insert (this function ran once per character of every call
  // ingested: measured in docs/perf-log.md). Prefixes of rarer letters go by text.
  const NARROW = 256
  const ONE = NARROW * NARROW
  const marks = new Int32Array(ONE + NARROW)
  const words: Array<string | undefined> = new Array<string | undefined>(ONE + NARROW)
  let call = 0
  const keys: number[] = []
  const wordOf = (key: number): string => {
    let w = words[key]
    if (w === undefined) {
      w = key >= ONE ? letters[key - ONE]! : letters[Math.floor(key / NARROW)]! + letters[key % NARROW]!
      words[key] = w
    }
    return w
  }
  // FNV-1a, as the term table hashes a word.
  const FNV_OFFSET = 0x811c9dc5 | 0
  const FNV_PRIME = 0x01000193
  return function shortPrefixes(texts: readonly string[], terms?: TermSink | null): string {
    // A new mark per call; after 2^31 calls the marks start over from a cleared table.
    if (++call === 0x7fffffff) {
      marks.fill(0)
      call = 1
    }
    keys.length = 0
    const sink = terms ?? null
    let wide: Set<string> | null = null
    for (const text of texts) {
      const n = text.length
      let first = 0
      let count = 0
      // The current word: where it starts, whether it is its own folded form, its hash.
      let start = 0
      let plain = true
      let h = FNV_OFFSET
      for (let i = 0; i < n; i++) {
        const at = i
        const c = text.charCodeAt(i)
        let v: number
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
          const cp = text.codePointAt(i)!
          let hit = astral.get(cp)
          if (hit === undefined) {
            hit = ask(String.fromCodePoint(cp))
            if (hit >= 0) hit |= 1
            astral.set(cp, hit)
          }
          v = hit
          i++
        } else {
          v = bmp[c]!
          if (v === -2) {
            v = ask(String.fromCharCode(c))
            bmp[c] = v
          }
        }
        if (v < 0 || (count === 0 && (v & 2) !== 0)) {
          if (count > 0 && sink !== null) {
            if (plain) sink.addSlice(text, start, at, h)
            else sink.addWord(folded(text, start, at))
          }
          count = 0
          continue
        }
        const k = v >> 2
        if (count === 0) {
          start = at
          plain = true
          h = FNV_OFFSET
          first = k
          if (k < NARROW) {
            const key = ONE + k
            if (marks[key] !== call) {
              marks[key] = call
              keys.push(key)
            }
          } else (wide ??= new Set()).add(letters[k]!)
          count = 1
        } else if (count === 1) {
          if (first < NARROW && k < NARROW) {
            const key = first * NARROW + k
            if (marks[key] !== call) {
              marks[key] = call
              keys.push(key)
            }
          } else (wide ??= new Set()).add(letters[first]! + letters[k]!)
          count = 2
        }
        if ((v & 1) === 1) plain = false
        else h = Math.imul(h ^ c, FNV_PRIME)
      }
      if (count > 0 && sink !== null) {
        if (plain) sink.addSlice(text, start, n, h)
        else sink.addWord(folded(text, start, n))
      }
    }
    // Joined, not concatenated: a flat string, not a rope that each reader flattens again.
    const out: string[] = new Array<string>(keys.length)
    for (let i = 0; i < keys.length; i++) out[i] = wordOf(keys[i]!)
    if (wide !== null) out.push(...wide)
    return out.join(' ')
  }
}

/** Source text of the index build's prefix function, given `Database` in its scope. */
export const SHORT_PREFIXES_SOURCE = `(${makeShortPrefixes.toString()})((${makeFtsCharProbe.toString()})(Database))`

let shared: ((texts: readonly string[], terms?: TermSink | null) => string) | null = null

/** This thread's prefix function (its probe opened on first use); given `terms`, it fills them too. */
export function shortPrefixesOf(texts: readonly string[], terms?: TermSink | null): string {
  shared ??= makeShortPrefixes(makeFtsCharProbe(Database))
  return shared(texts, terms)
}
