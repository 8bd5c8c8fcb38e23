import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { makeFtsCharProbe, makeShortPrefixes, shortPrefixesOf } from '../../../../src/core/cache/ingest/short-prefixes'
import { TermTable } from '../../../../src/core/cache/ingest/term-list'

/** A seeded generator, so a failure names texts that can be made again. */
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

// Turkish letters and their capitals, Latin, digits, separators, a few scripts and emoji, and
// more distinct letters than a flat table of prefixes holds (CJK ideographs).
const ALPHABET = [
  ...'abcçdefgğhıijklmnoöprsştuüvyzABCÇDEFGĞHIİJKLMNOÖPRSŞTUÜVYZ0123456789',
  ...'     .,;-_/\'"!?',
  ...'αβγδεζηθ',
  ...'абвгдежз',
  '😀',
  '𝒜',
  'é',
  'ß'
]
const CJK = Array.from({ length: 400 }, (_, i) => String.fromCodePoint(0x4e00 + i * 7))

function text(r: () => number, wide: boolean): string {
  const pool = wide ? [...ALPHABET, ...CJK] : ALPHABET
  let s = ''
  const n = Math.floor(r() * 300)
  for (let i = 0; i < n; i++) s += pool[Math.floor(r() * pool.length)]!
  return s
}

/** What the short-prefix index must hold for texts: the one- and two-letter beginnings of calls_fts's tokens of them. */
function expected(db: Database.Database, texts: string[]): Set<string> {
  db.prepare('DELETE FROM t').run()
  db.prepare('INSERT INTO t (rowid, a, b, c) VALUES (1, ?, ?, ?)').run(...texts)
  const terms = db.prepare('SELECT term FROM v').pluck().all() as string[]
  const out = new Set<string>()
  for (const term of terms) {
    const cps = [...term]
    out.add(cps[0]!)
    if (cps.length > 1) out.add(cps[0]! + cps[1]!)
  }
  return out
}

describe('short prefixes of a call', () => {
  it('are exactly the one- and two-letter beginnings of the full-text tokens, each once', () => {
    const db = new Database(':memory:')
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(a, b, c, tokenize='unicode61 remove_diacritics 0');
      CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row');`)
    const r = rng(7)
    for (let i = 0; i < 400; i++) {
      // The wide texts come late, so letters numbered past the flat table meet narrow ones.
      const texts = [text(r, i > 200), text(r, false), text(r, i % 3 === 0)]
      const got = shortPrefixesOf(texts)
      const tokens = got === '' ? [] : got.split(' ')
      expect(new Set(tokens).size).toBe(tokens.length)
      expect(new Set(tokens)).toEqual(expected(db, texts))
    }
    db.close()
  })
})

describe('one scan of a call for its short prefixes and its words', () => {
  it("yields exactly calls_fts's tokens' short prefixes and its terms, on hostile text", () => {
    const db = new Database(':memory:')
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(a, b, c, tokenize='unicode61 remove_diacritics 0');
      CREATE VIRTUAL TABLE v USING fts5vocab(t, 'row');`)
    // Dotted and dotless I both ways, combining marks alone and after letters, emoji and
    // astral capitals, digits glued to words, runs of punctuation, lone surrogates, empty texts.
    const hostile = [
      ['İstanbul IŞIK ışık iı Iİ', 'x\u0301y \u0301\u0301 e\u0300\u0301 şi̇ir', ''],
      ['', '', ''],
      ['😀😀 a😀b 👍🏽ok 𝒜BC 𐐀𐐁ak', '100tl 12.5 3e-4 v2.0', '...;;--__//!!??'],
      ['ǅemal ǆ ΟΔΟΣ Straße ＡＢＣ Ⅻ', '\ud800 yarım\udc00kelime \udbff', 'ÇAĞRI çağrı Çağrı'],
      ['a', 'b c', 'İ'],
      ['___', '-', "'"]
    ]
    const r = rng(11)
    const random = Array.from({ length: 150 }, (_, i) => [text(r, i > 75), text(r, false), text(r, i % 4 === 0)])
    const scan = makeShortPrefixes(makeFtsCharProbe(Database))
    try {
      for (const texts of [...hostile, ...random]) {
        // A table per call: the terms it yields are the call's own.
        const terms = new TermTable()
        const got = scan(texts, terms)
        const tokens = got === '' ? [] : got.split(' ')
        expect(new Set(tokens).size).toBe(tokens.length)
        expect(new Set(tokens)).toEqual(expected(db, texts))
        const want = new Set(db.prepare('SELECT term FROM v').pluck().all() as string[])
        expect(new Set(terms.take())).toEqual(want)
        // Without a table: the same tokens.
        expect(scan(texts)).toBe(got)
      }
    } finally {
      db.close()
    }
  })
})
