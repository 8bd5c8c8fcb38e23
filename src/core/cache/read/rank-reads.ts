import type Database from 'better-sqlite3'
import { parseIntList } from './int-list'
import type { StatementCache } from './statements'
import type { IndexTotals, RankReads } from './types'

/**
 * What relevance ranking in memory (search/relevance-rank.ts) reads of the full-text index:
 * the numbers FTS5's bm25 reads through its auxiliary-function API, read from the index's
 * own tables instead (FTS5's file format: the averages record is row 1 of `calls_fts_data`,
 * a row's column sizes are `calls_fts_docsize.sz`, both SQLite varints).
 */
export class SqliteRankReads implements RankReads {
  private instancesReady = false

  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache
  ) {}

  totals(): IndexTotals {
    // A 'rank' row in the config table means a rank function other than bm25() with its
    // defaults (weights, another function): the in-memory ranking does not apply then.
    const custom = this.statements.get("SELECT count(*) FROM calls_fts_config WHERE k = 'rank'", 'pluck').get() as number
    const hex = this.statements.get('SELECT hex(block) FROM calls_fts_data WHERE id = 1', 'pluck').get() as string | undefined
    const v = hex === undefined ? [] : varints(hex)
    let tokens = 0
    for (let i = 1; i < v.length; i++) tokens += v[i]!
    return { defaultRank: custom === 0, rows: v[0] ?? 0, tokens, columns: Math.max(0, v.length - 1) }
  }

  termDocs(term: string): { docs: number; vocabDocs: number; instances: number } {
    // What bm25's xQueryPhrase counts (matching rows), and the vocabulary's totals of the term.
    const docs = this.statements.get('SELECT count(*) FROM calls_fts WHERE calls_fts MATCH ?', 'pluck').get(`"${term}"`) as number
    const row = this.statements.get('SELECT doc, cnt FROM calls_fts_vocab WHERE term = ?', 'raw').get(term) as [number, number] | undefined
    return { docs, vocabDocs: row?.[0] ?? 0, instances: row?.[1] ?? 0 }
  }

  repeats(term: string): Map<number, number> {
    // An instance vocabulary lives in the temp schema of this connection (no file change).
    if (!this.instancesReady) {
      this.db.exec('CREATE VIRTUAL TABLE IF NOT EXISTS temp.calls_fts_instances USING fts5vocab(main, calls_fts, instance)')
      this.instancesReady = true
    }
    const text = this.statements
      .get(
        "SELECT group_concat(doc || ',' || n) FROM (SELECT doc, count(*) AS n FROM temp.calls_fts_instances WHERE term = ? GROUP BY doc HAVING count(*) > 1)",
        'pluck'
      )
      .get(term) as string | null
    const pairs = parseIntList(text)
    const out = new Map<number, number>()
    for (let i = 0; i + 1 < pairs.length; i += 2) out.set(pairs[i]!, pairs[i + 1]!)
    return out
  }

  idSpan(from: number | null, to: number | null): [number, number] | null {
    const conds = [...(from !== null ? ['call_at >= ?'] : []), ...(to !== null ? ['call_at < ?'] : [])]
    const params = [...(from !== null ? [from] : []), ...(to !== null ? [to] : [])]
    const where = conds.length ? ` WHERE ${conds.join(' AND ')}` : ''
    const row = this.statements.get(`SELECT min(id), max(id) FROM calls INDEXED BY calls_by_date${where}`, 'raw').get(...params) as [
      number | null,
      number | null
    ]
    return row[0] === null || row[1] === null ? null : [row[0], row[1]]
  }

  docSizes(lo: number, hi: number, columns: number): { ids: Int32Array | null; sizes: Int32Array } {
    // The rows' size records joined into one blob (a row per call would cost a JS value per
    // cell): each is one varint per column, so they split without separators. The ids are
    // read only when some id of the span has no row.
    const W = 'FROM calls_fts_docsize WHERE id >= CAST(? AS INTEGER) AND id <= CAST(? AS INTEGER)'
    const [n, blob] = this.statements.get(`SELECT count(*), CAST(group_concat(sz, '') AS BLOB) ${W}`, 'raw').get(lo, hi) as [
      number,
      Buffer | null
    ]
    const sizes = rowTotals(blob ?? Buffer.alloc(0), n, columns)
    if (n === hi - lo + 1) return { ids: null, sizes }
    return { ids: parseIntList(this.statements.get(`SELECT group_concat(id) ${W}`, 'pluck').get(lo, hi) as string | null), sizes }
  }

  ln(x: number): number {
    // SQLite's ln() is C's log(), the function bm25's idf is computed with.
    return this.statements.get('SELECT ln(?)', 'pluck').get(x) as number
  }
}

/** SQLite varints (big-endian, 7 bits a byte, the ninth byte whole) from hex text. */
export function varints(hex: string): number[] {
  const out: number[] = []
  let i = 0
  const n = hex.length >> 1
  while (i < n) {
    let v = 0
    for (let k = 0; i < n; k++) {
      const byte = parseInt(hex.substr(i * 2, 2), 16)
      i++
      if (k === 8) {
        v = v * 256 + byte
        break
      }
      v = v * 128 + (byte & 0x7f)
      if ((byte & 0x80) === 0) break
    }
    out.push(v)
  }
  return out
}

/** Each row's total of `columns` SQLite varints, `rows` rows back to back. */
export function rowTotals(blob: Uint8Array, rows: number, columns: number): Int32Array {
  const out = new Int32Array(rows)
  let i = 0
  for (let r = 0; r < rows; r++) {
    let total = 0
    for (let c = 0; c < columns; c++) {
      let v = 0
      for (let k = 0; i < blob.length; k++) {
        const byte = blob[i++]!
        if (k === 8) {
          v = v * 256 + byte
          break
        }
        v = v * 128 + (byte & 0x7f)
        if ((byte & 0x80) === 0) break
      }
      total += v
    }
    out[r] = total
  }
  return out
}
