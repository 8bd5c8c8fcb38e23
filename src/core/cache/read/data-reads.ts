import type { CallType } from '../../../shared/domain'
import type Database from 'better-sqlite3'
import { connectionOf, type CallCache } from '../call-cache'
import type { ChangeSet } from '../change-journal'
import { SHORT_INDEX_TABLE, shortPrefixToken } from '../ingest/short-prefixes'
import { TERMS_TABLE } from '../ingest/term-list'
import { parseIntList } from './int-list'
import type { StatementCache } from './statements'
import type { AnalysisKeyRow, CatalogReads, DataReads, DataVersion, HeldWindow, MatchReads, ScopeRef, SqlPiece } from './types'

/** Above every code point, so `term < prefix + TOP` bounds a prefix range in binary order. */
const TOP = '\u{10FFFF}'

/** Where the data stands, and what the catalog tables say. */
export class SqliteDataReads implements DataReads, CatalogReads {
  private dataVersionStmt: Database.Statement | null = null
  /** Whether the cache keeps the term list (read once: a connection's schema keeps it). */
  private termList: boolean | null = null

  constructor(
    private readonly cache: CallCache,
    private readonly statements: StatementCache
  ) {}

  version(): DataVersion {
    // Prepared once: PRAGMA data_version through db.pragma() would compile it on every call.
    this.dataVersionStmt ??= connectionOf(this.cache).prepare('PRAGMA data_version').pluck()
    return { writeCount: this.cache.writeCount, sqliteDataVersion: this.dataVersionStmt.get() as number }
  }

  changesSince(writeCount: number): ChangeSet | null {
    return this.cache.changesSince(writeCount)
  }

  reviewVersion(): number {
    return this.cache.reviewVersion
  }

  reviewShared(): boolean {
    return this.cache.review.share.enabled
  }

  maxCallId(): number {
    // A cache that holds a window of a team cache drops its oldest calls one by one, leaving
    // gaps in the ids: the calls per hour (kept with every write) add up to the count then.
    // (A benchmark may hold the schema below the migration that adds team_window.)
    const windowed = this.statements.get("SELECT 1 FROM sqlite_schema WHERE name = 'team_window'", 'pluck').get() === 1
    if (windowed && this.statements.get('SELECT held_from IS NOT NULL FROM team_window WHERE id = 1', 'pluck').get() === 1) {
      return this.statements.get('SELECT coalesce(sum(n), 0) FROM agg_hours', 'pluck').get() as number
    }
    return this.statements.get('SELECT coalesce(max(id), 0) FROM calls', 'pluck').get() as number
  }

  scopes(): ScopeRef[] {
    return this.cache.scopes().map((s) => ({ id: s.id, filters: s.filters, coverage: s.coverage }))
  }

  callTypes(): CallType[] {
    return this.cache.callTypes()
  }

  analysisKeys(): AnalysisKeyRow[] {
    const rows = this.statements
      .get('SELECT id, key, friendly_name, items, numeric_items FROM analysis_keys ORDER BY key, items DESC, id', 'raw')
      .all() as Array<[number, string, string, number, number]>
    return rows.map(([id, key, friendlyName, items, numericItems]) => ({ id, key, friendlyName, items, numericItems }))
  }

  hasShortPrefixIndex(): boolean {
    return this.statements.get('SELECT 1 FROM sqlite_schema WHERE name = ?', 'pluck').get(SHORT_INDEX_TABLE) !== undefined
  }

  heldWindow(): HeldWindow | null {
    const w = this.cache.teamWindow()
    const scopes = this.cache.teamScopes()
    if (w.heldFrom === null && scopes === null) return null
    return { start: w.heldFrom, days: w.days, scopes: scopes === null ? null : [...new Set(scopes.map((s) => s.name))] }
  }

  prefixIndexLengths(): number[] {
    // Schema 17 on: the short-prefix index answers one- and two-letter prefixes.
    if (this.hasShortPrefixIndex()) return [1, 2]
    // Schemas 7 to 16: FTS5's own prefix indexes, whose lengths only its CREATE statement keeps.
    const sql = (this.statements.get("SELECT sql FROM sqlite_schema WHERE name = 'calls_fts'", 'pluck').get() as string | undefined) ?? ''
    const m = /prefix\s*=\s*'([\d\s]+)'/i.exec(sql)
    return m ? m[1]!.trim().split(/\s+/).map(Number) : []
  }

  prefixTerms(prefix: string, limit: number, from: 'list' | 'index' = 'list'): string[] {
    // The kept term list (schema 21 on) is a B-tree range read; fts5vocab reads each listed
    // term's whole doclist to count its documents (term-list.ts). An older file opened
    // read-only has no list.
    this.termList ??= this.statements.get('SELECT 1 FROM sqlite_schema WHERE name = ?', 'pluck').get(TERMS_TABLE) !== undefined
    const table = from === 'list' && this.termList ? TERMS_TABLE : 'calls_fts_vocab'
    return this.statements
      .get(`SELECT term FROM ${table} WHERE term >= ? AND term < ? LIMIT ?`, 'pluck')
      .all(prefix, prefix + TOP, limit) as string[]
  }
}

/**
 * Match lists and counts. A short prefix alone (`"ka"*`) is read from the short-prefix index
 * when the cache has one (schema 17 on): calls_fts keeps no prefix index, and would merge
 * the doclists of every word under it.
 */
export class SqliteMatchReads implements MatchReads {
  private short: boolean | null = null

  constructor(private readonly statements: StatementCache) {}

  /** The table and MATCH expression that answer `match` fastest, with the same rows. */
  private source(match: string): { table: string; match: string } {
    this.short ??= this.statements.get('SELECT 1 FROM sqlite_schema WHERE name = ?', 'pluck').get(SHORT_INDEX_TABLE) !== undefined
    const token = this.short ? shortPrefixToken(match) : null
    return token === null ? { table: 'calls_fts', match } : { table: SHORT_INDEX_TABLE, match: token }
  }

  /** The number of calls `match` holds (FTS5's own count, from the fastest table). */
  ftsCount(match: string): number {
    const { table, match: m } = this.source(match)
    return this.statements.get(`SELECT count(*) FROM ${table} WHERE ${table} MATCH ?`, 'pluck').get(m) as number
  }

  boundedIds(ids: SqlPiece, cap: number): { n: number; ids: string | null } {
    const row = this.statements.get(`SELECT count(*), group_concat(id) FROM (${ids.sql} LIMIT ?)`, 'raw').get(...ids.params, cap) as
      [number, string | null] | undefined
    const [n, list] = row ?? [0, null]
    return { n, ids: n < cap ? `[${list ?? ''}]` : null }
  }

  boundedMatches(match: string, cap: number): { n: number; ids: string | null } {
    const { table, match: m } = this.source(match)
    const row = this.statements
      .get(`SELECT count(*), group_concat(rowid) FROM (SELECT rowid FROM ${table} WHERE ${table} MATCH ? LIMIT ?)`, 'raw')
      .get(m, cap) as [number, string | null] | undefined
    const [n, ids] = row ?? [0, null]
    return { n, ids: n < cap ? `[${ids ?? ''}]` : null }
  }

  boundedSplit(
    split: { long: string; short: readonly string[] },
    cap: number,
    kept?: readonly Uint8Array[]
  ): { n: number; ids: string | null } {
    // Block by block of ids, in ascending order as FTS5 lists them: the long part's matches in
    // the block, then each short prefix's (its index read for that stretch only), intersected,
    // until `cap` are found. A block of the short index is a few milliseconds; calls_fts
    // would merge every word under the prefix over the whole cache.
    const maxId = this.statements.get('SELECT max(id) FROM calls', 'pluck').get() as number | null
    const found: number[] = []
    for (let lo = 0; maxId !== null && lo <= maxId && found.length < cap; lo += SPLIT_BLOCK) {
      const bounds = [lo, Math.min(maxId, lo + SPLIT_BLOCK - 1)] as const
      let ids = this.ftsIds(split.long, bounds)
      if (kept) ids = ids.filter((id) => kept.every((bits) => bits[id] === 1))
      else for (const s of split.short) if (ids.length > 0) ids = intersectAscending(ids, this.ftsIds(s, bounds))
      for (let i = 0; i < ids.length && found.length < cap; i++) found.push(ids[i]!)
    }
    return { n: found.length, ids: found.length < cap ? `[${found.join(',')}]` : null }
  }

  idList(ids: SqlPiece): Int32Array {
    return parseIntList(this.statements.get(`SELECT group_concat(id) FROM (${ids.sql})`, 'pluck').get(...ids.params) as string | null)
  }

  count(countSql: SqlPiece): number {
    return this.statements.get(countSql.sql, 'pluck').get(...countSql.params) as number
  }

  ftsIds(match: string, bounds: readonly [number, number] | null): Int32Array {
    // FTS5 takes rowid bounds as a range of its doclists: only the matches within are read.
    // Only INTEGER bounds: the driver binds a JS number as REAL, which FTS5 ignores as a
    // bound (it then reads the whole doclist, ~25 ms for a common word at 1,000,000 calls,
    // and SQLite filters the rows): hence the CASTs.
    const { table, match: m } = this.source(match)
    const text =
      bounds === null
        ? this.statements.get(`SELECT group_concat(rowid) FROM ${table} WHERE ${table} MATCH ?`, 'pluck').get(m)
        : this.statements
            .get(
              `SELECT group_concat(rowid) FROM ${table} WHERE ${table} MATCH ? AND rowid >= CAST(? AS INTEGER) AND rowid <= CAST(? AS INTEGER)`,
              'pluck'
            )
            .get(m, bounds[0], bounds[1])
    return parseIntList(text as string | null)
  }

  idsInTime(from: number, to: number): Int32Array {
    return parseIntList(
      this.statements
        .get('SELECT group_concat(id) FROM calls INDEXED BY calls_by_date WHERE call_at >= ? AND call_at < ?', 'pluck')
        .get(from, to) as string | null
    )
  }
}

/** Ids per block of boundedSplit: at most 16 blocks at 1,000,000 calls, 77 at 5,000,000. */
const SPLIT_BLOCK = 65_536

/** The ids in both ascending lists. */
function intersectAscending(a: Int32Array, b: Int32Array): Int32Array {
  const out = new Int32Array(Math.min(a.length, b.length))
  let n = 0
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    if (a[i]! < b[j]!) i++
    else if (a[i]! > b[j]!) j++
    else {
      out[n++] = a[i]!
      i++
      j++
    }
  }
  return out.subarray(0, n)
}
