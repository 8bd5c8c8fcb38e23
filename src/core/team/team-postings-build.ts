import type pg from 'pg'
import { mapPgError, q } from './connection'
import { emptySet, encodePosts, encodeSet } from './count-posts'
import { teamSearchState } from './pg-migration-8'
import { inTransaction } from './pg-transaction'
import { DAY_MS } from './window'

/**
 * The builder of the count's postings (schema 11, pg-migration-11.ts): each dirty chunk's
 * terms read from its rows, PostgreSQL grouping the offsets, and written in place of the
 * chunk's old postings.
 *
 * The race with writers: the chunk's dirty version is read first, the rows after it (each
 * statement sees what was committed when it started), and the mark removed only at that
 * version, in the transaction that replaces the postings. A write committed after the version
 * was read bumped it (its trigger runs in its own transaction), so the chunk stays dirty and
 * is built again; a write still open holds the mark's row, and the DELETE waits for it and
 * then sees the new version (or, when the builder held the row first, the writer's mark
 * waits for the build's commit and then bumps it). Readers see the old postings with the mark or the new ones
 * without it, never a mix (one commit).
 */

export const TERM_SEP = '\x1f'
/** Words with more positions than PostgreSQL keeps, or past its last position, lose some: see `x`. */
const MAX_POSITIONS_PER_WORD = 256
const MAX_POSITION = 16383
/** Terms written per statement. */
const WRITE_BATCH = 5000

/** The chunk size of the schema's postings, as a shift: 2^bits calls a chunk. */
export async function chunkBits(c: pg.ClientBase | pg.Pool, schema: string): Promise<number> {
  const r = await c.query<{ b: number }>(`SELECT ${q(schema)}.count_chunk_bits() AS b`)
  return Number(r.rows[0]!.b)
}

/** The `d:` term of a UTC day (its number since 1970-01-01). */
export function dayTerm(day: number): string {
  return `d:${new Date(day * DAY_MS).toISOString().slice(0, 10)}`
}

/** The UTC day (its number since 1970-01-01) of a `d:` term. */
export function dayOfTerm(term: string): number {
  return Date.parse(`${term.slice(2)}T00:00:00Z`) / DAY_MS
}

/** Offsets as PostgreSQL's string_agg gave them ("3,17,2"), sorted and without repeats. */
function parseOffsets(s: string | null): Int32Array {
  if (!s) return new Int32Array(0)
  let n = 1
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 44) n++
  const out = new Int32Array(n)
  let k = 0
  let v = 0
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i)
    if (ch === 44) {
      out[k++] = v
      v = 0
    } else v = v * 10 + ch - 48
  }
  out[k] = v
  return sortedDistinct(out)
}

function sortedDistinct(out: Int32Array): Int32Array {
  let sorted = true
  for (let i = 1; i < out.length && sorted; i++) if (out[i]! <= out[i - 1]!) sorted = false
  if (sorted) return out
  out.sort()
  let n = 0
  for (let i = 0; i < out.length; i++) if (i === 0 || out[i] !== out[i - 1]) out[n++] = out[i]!
  return out.subarray(0, n)
}

/** The 1-, 2- and 3-letter prefixes of a word (letters as PostgreSQL counts them: code points). */
function prefixes(word: string): string[] {
  const chars = Array.from(word.slice(0, 6)).slice(0, 3)
  const out: string[] = []
  for (let k = 1; k <= chars.length; k++) out.push(chars.slice(0, k).join(''))
  return out
}

export interface ChunkTerms {
  terms: string[]
  posts: Buffer[]
}

/** The chunk's terms and postings from its rows, as committed now (several statements). */
export async function readChunkTerms(c: pg.ClientBase, schema: string, chunk: number, bits: number): Promise<ChunkTerms> {
  const s = q(schema)
  const lo = chunk * 2 ** bits
  const range = [String(lo), String(lo + 2 ** bits)]
  const inChunk = 'c.num >= $1 AND c.num < $2'
  const off = '(c.num - $1)::text'
  const terms: string[] = []
  const posts: Buffer[] = []
  const add = (term: string, offsets: Int32Array): void => {
    if (offsets.length === 0) return
    terms.push(term)
    posts.push(encodePosts(offsets, bits))
  }
  const grouped = async (sql: string): Promise<Array<{ t: string; o: string }>> =>
    (await c.query<{ t: string; o: string }>(sql, range)).rows

  // Words: the lexemes alone (tsvector_to_array builds no position arrays, unlike unnest).
  const prefixSets = new Map<string, Uint32Array>()
  for (const r of await grouped(
    `SELECT u AS t, string_agg(${off}, ',') AS o FROM ${s}.calls c CROSS JOIN LATERAL unnest(tsvector_to_array(c.search)) u WHERE ${inChunk} GROUP BY u`
  )) {
    const offsets = parseOffsets(r.o)
    add(`w:${r.t}`, offsets)
    for (const p of prefixes(r.t)) {
      let set = prefixSets.get(p)
      if (!set) prefixSets.set(p, (set = emptySet(bits)))
      for (const o of offsets) set[o >> 5]! |= 1 << (o & 31)
    }
  }
  for (const [p, set] of prefixSets) {
    terms.push(`p:${p}`)
    posts.push(encodeSet(set, bits))
  }

  // The rest from one pass over the rows: facts, days, the calls present, and the lossy ones:
  // calls whose tsvector lost positions (a word's past PostgreSQL's 256, or words past its last
  // position) or has none, where a word's weight is not what its postings say, so a chunk
  // holding one is counted by SQL. Either loss needs 256 positions kept, 512 bytes more than
  // the stripped vector: only such a vector (or a compressed one) is unnested.
  const rows = await c.query<{ o: number; at: string; facts: string | null; lossy: boolean }>(
    `SELECT (c.num - $1)::integer AS o, c.call_at AS at, c.facts::text AS facts,
       c.search IS NULL OR ((pg_column_compression(c.search) IS NOT NULL OR pg_column_size(c.search) - pg_column_size(strip(c.search)) >= 512)
         AND EXISTS (SELECT 1 FROM unnest(c.search) u
           WHERE cardinality(u.positions) >= ${MAX_POSITIONS_PER_WORD} OR u.positions[cardinality(u.positions)] >= ${MAX_POSITION})) AS lossy
     FROM ${s}.calls c WHERE ${inChunk}`,
    range
  )
  const lists = new Map<string, number[]>()
  const push = (term: string, o: number): void => {
    const l = lists.get(term)
    if (l) l.push(o)
    else lists.set(term, [o])
  }
  const days = new Map<number, string>()
  for (const r of rows.rows) {
    push('all', r.o)
    if (r.lossy) push('x', r.o)
    const day = Math.floor(Number(r.at) / DAY_MS)
    let term = days.get(day)
    if (term === undefined) days.set(day, (term = dayTerm(day)))
    push(term, r.o)
    const facts: unknown = r.facts === null ? null : JSON.parse(r.facts)
    if (facts === null || typeof facts !== 'object' || Array.isArray(facts)) continue
    for (const [key, values] of Object.entries(facts as Record<string, unknown>)) {
      if (!Array.isArray(values)) continue
      // The writer's numbers are JavaScript's (search-columns.ts): their text is jsonb's.
      for (const v of values)
        if (typeof v === 'string') push(`e:${key}${TERM_SEP}${v}`, r.o)
        else if (typeof v === 'number') push(`n:${key}${TERM_SEP}${String(v)}`, r.o)
    }
  }
  for (const [term, list] of lists) add(term, sortedDistinct(Int32Array.from(list)))

  // The chunk's memberships by its calls' ids (the index kept for this, MEMBERS_BY_CALL):
  // OFFSET 0 keeps the lookup per call, where a join would hash every membership of the cache.
  for (const r of await grouped(
    `SELECT m.scope_id AS t, string_agg(${off}, ',') AS o
     FROM ${s}.calls c CROSS JOIN LATERAL (SELECT m.scope_id FROM ${s}.scope_members m WHERE m.call_id = c.call_id OFFSET 0) m
     WHERE ${inChunk} GROUP BY 1`
  ))
    add(`s:${r.t}`, parseOffsets(r.o))
  return { terms, posts }
}

export interface BuildHooks {
  /** Called after the rows were read, before the postings are written (tests: a write lands meanwhile). */
  afterRead?: () => Promise<void>
}

/**
 * Builds one chunk if it is dirty; true when its mark was removed (no write came in meanwhile).
 * READ COMMITTED, on purpose: see the module's comment.
 */
export async function buildChunk(c: pg.ClientBase, schema: string, chunk: number, bits: number, hooks: BuildHooks = {}): Promise<boolean> {
  const s = q(schema)
  const v = await c.query<{ version: string }>(`SELECT version FROM ${s}.count_dirty WHERE chunk = $1`, [chunk])
  if (v.rows.length === 0) return false
  const version = v.rows[0]!.version
  const built = await readChunkTerms(c, schema, chunk, bits)
  await hooks.afterRead?.()
  return inTransaction(c, async () => {
    // One builder a chunk (a standby worker may build too): the mark's row is held to the
    // commit; a writer's mark waits for it (milliseconds), another builder skips the chunk.
    const held = await c.query(`SELECT 1 FROM ${s}.count_dirty WHERE chunk = $1 FOR UPDATE SKIP LOCKED`, [chunk])
    if (held.rows.length === 0) return false
    await c.query(`DELETE FROM ${s}.count_posts WHERE chunk = $1`, [chunk])
    for (let i = 0; i < built.terms.length; i += WRITE_BATCH) {
      await c.query(`INSERT INTO ${s}.count_posts (term, chunk, posts) SELECT t, $1, p FROM unnest($2::text[], $3::bytea[]) AS x(t, p)`, [
        chunk,
        built.terms.slice(i, i + WRITE_BATCH),
        built.posts.slice(i, i + WRITE_BATCH)
      ])
    }
    const done = await c.query(`DELETE FROM ${s}.count_dirty WHERE chunk = $1 AND version = $2`, [chunk, version])
    return (done.rowCount ?? 0) > 0
  })
}

export interface BuildResult {
  /** Chunks built whose marks were removed. */
  built: number
  /** Chunks a write made dirty again while they were built. */
  again: number
}

/**
 * Builds every dirty chunk (oldest number first); nothing when search is off (no columns to
 * read). Stops early when `signal` is aborted, or once `budgetMs` is spent (at least one chunk
 * is built each call, so a caller that calls again makes progress); what is left stays dirty
 * and is counted by SQL meanwhile.
 */
export async function buildDirtyChunks(
  pool: pg.Pool,
  schema: string,
  opts: { signal?: AbortSignal; budgetMs?: number } & BuildHooks = {}
): Promise<BuildResult> {
  const until = opts.budgetMs === undefined ? Infinity : performance.now() + opts.budgetMs
  const out: BuildResult = { built: 0, again: 0 }
  let c: pg.PoolClient
  try {
    c = await pool.connect()
  } catch (e) {
    throw mapPgError(e)
  }
  try {
    if ((await teamSearchState(c, schema)) === 'off') return out
    const bits = await chunkBits(c, schema)
    const dirty = await c.query<{ chunk: number }>(`SELECT chunk FROM ${q(schema)}.count_dirty ORDER BY chunk`)
    for (const { chunk } of dirty.rows) {
      if (opts.signal?.aborted || (out.built + out.again > 0 && performance.now() >= until)) break
      if (await buildChunk(c, schema, chunk, bits, opts)) out.built++
      else out.again++
    }
    return out
  } catch (e) {
    throw mapPgError(e)
  } finally {
    c.release()
  }
}
