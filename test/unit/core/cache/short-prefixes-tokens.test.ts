import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { shortPrefixesOf } from '../../../../src/core/cache/ingest/short-prefixes'

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
