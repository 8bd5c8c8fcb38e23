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
 * How calls_fts's tokenizer treats one character: its folded form when it is part of a word,
 * null when it separates words. Asked of SQLite itself (a private in-memory FTS5 table with the
 * same tokenizer), once per distinct character. A closure with no free variables: its source
 * text goes to the index build's worker thread (deferred-index.ts), given SQLite's module.
 */
export function makeFtsCharProbe(Db: new (file: string) => Database.Database): (ch: string) => string | null {
  const db = new Db(':memory:')
  db.exec(`CREATE VIRTUAL TABLE probe USING fts5(x, tokenize='unicode61 remove_diacritics 0');
    CREATE VIRTUAL TABLE probe_terms USING fts5vocab(probe, 'instance');`)
  const put = db.prepare('INSERT INTO probe (rowid, x) VALUES (1, ?)')
  const terms = db.prepare('SELECT term FROM probe_terms ORDER BY offset').pluck()
  const clear = db.prepare('DELETE FROM probe')
  return function probe(ch: string): string | null {
    // Between two letters: one word of three letters when it belongs to words, two words else.
    put.run('x' + ch + 'x')
    const words = terms.all() as string[]
    clear.run()
    return words.length === 1 && words[0]!.length > 2 ? words[0]!.slice(1, -1) : null
  }
}

/**
 * The short-prefix tokens of a call's indexed texts, space-separated: each distinct one- and
 * two-letter beginning of their words. A closure with no free variables (see makeFtsCharProbe).
 */
export function makeShortPrefixes(probe: (ch: string) => string | null): (texts: readonly string[]) => string {
  // Each character's folded code point, asked once: -1 a separator, -2 not asked yet. The
  // tokenizer folds a code point to one code point. ASCII and the rest of the BMP in an
  // array, the astral planes in a map.
  const bmp = new Int32Array(0x10000).fill(-2)
  const astral = new Map<number, number>()
  const ask = (ch: string): number => {
    const f = probe(ch)
    return f === null ? -1 : f.codePointAt(0)!
  }
  return function shortPrefixes(texts: readonly string[]): string {
    // A prefix as a number: one letter, its code point; two, first * 0x110000 + second (exact in a double).
    const seen = new Set<number>()
    for (const text of texts) {
      let first = 0
      let letters = 0
      for (let i = 0; i < text.length; i++) {
        let c = text.charCodeAt(i)
        let f: number
        if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
          c = text.codePointAt(i)!
          i++
          let hit = astral.get(c)
          if (hit === undefined) {
            hit = ask(String.fromCodePoint(c))
            astral.set(c, hit)
          }
          f = hit
        } else {
          f = bmp[c]!
          if (f === -2) {
            f = ask(String.fromCharCode(c))
            bmp[c] = f
          }
        }
        if (f < 0) {
          letters = 0
        } else if (letters === 0) {
          first = f
          seen.add(f)
          letters = 1
        } else if (letters === 1) {
          seen.add(first * 0x110000 + f)
          letters = 2
        }
      }
    }
    let out = ''
    for (const k of seen) {
      const word = k < 0x110000 ? String.fromCodePoint(k) : String.fromCodePoint(Math.floor(k / 0x110000), k % 0x110000)
      out += out.length === 0 ? word : ' ' + word
    }
    return out
  }
}

/** Source text of the index build's prefix function, given `Database` in its scope. */
export const SHORT_PREFIXES_SOURCE = `(${makeShortPrefixes.toString()})((${makeFtsCharProbe.toString()})(Database))`

let shared: ((texts: readonly string[]) => string) | null = null

/** This thread's prefix function (its probe opened on first use). */
export function shortPrefixesOf(texts: readonly string[]): string {
  shared ??= makeShortPrefixes(makeFtsCharProbe(Database))
  return shared(texts)
}
