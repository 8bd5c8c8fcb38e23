import type pg from 'pg'
import type { ResolvedNode } from '../../shared/query/ast'
import { q } from './connection'
import { andInto, emptySet, notWithin, offsetsOf, orInto, orPosts, popcount } from './count-posts'
import { chunkBits, dayOfTerm, TERM_SEP } from './team-postings-build'
import { DAY_MS } from './window'
import { rangePath, textTsquery, type TeamCompiled } from './team-query'

/**
 * The exact count from the count's postings (schema 11): the compiled query's tree evaluated
 * per chunk as set algebra in Node, so no calls row is read for a chunk whose postings are
 * built. Chunks still dirty (or holding a call whose tsvector lost words) are counted by the
 * query's own SQL restricted to their numbers; phrases and words of one field are the AND of
 * their words' postings checked by SQL when few; the partial days of a date range are read
 * through the date index. Whatever this does not take returns null: the caller counts by SQL.
 * The caller's transaction is one REPEATABLE READ snapshot, so postings, marks and rows agree.
 */

/** Past these, the old count is as quick: rows of postings one range term reads; calls SQL checks. */
const MAX_RANGE_ROWS = 200_000
const MAX_VERIFY = 50_000
const MAX_EDGE_CALLS = 200_000

type Plan =
  | { kind: 'terms'; key: string }
  | { kind: 'verified'; key: string }
  | { kind: 'none' }
  | { kind: 'not'; item: Plan }
  | { kind: 'and' | 'or'; items: Plan[] }

type TextNode = Extract<ResolvedNode, { kind: 'text' }>

/** Per leaf key, per chunk, the stored postings to OR. */
type Leaves = Map<string, Map<number, Uint8Array[]>>

class Planner {
  /** Exact terms to read, and the leaf they feed. */
  readonly terms = new Map<string, string>()
  /** w: ranges of prefixes longer than the stored ones. */
  readonly prefixes = new Set<string>()
  readonly ranges = new Map<string, Extract<ResolvedNode, { kind: 'range' }>>()
  readonly verify = new Map<string, { node: TextNode; words: Plan[] }>()
  unsupported = false

  private term(t: string): Plan {
    this.terms.set(t, t)
    return { kind: 'terms', key: t }
  }

  /** A word (or, last typed, a prefix) as a set: every weight, no positions. */
  private word(tok: string, prefix: boolean): Plan {
    if (!prefix) return this.term(`w:${tok}`)
    if (Array.from(tok).length <= 3) return this.term(`p:${tok}`)
    this.prefixes.add(tok)
    return { kind: 'terms', key: `w*:${tok}` }
  }

  plan(n: ResolvedNode): Plan {
    switch (n.kind) {
      case 'text': {
        if (n.field === 'note' || n.tokens.length === 0) return { kind: 'none' }
        // As the tsquery is built: quotes and backslashes dropped.
        const toks = n.tokens.map((t) => t.replace(/['\\]/g, ''))
        if (toks.some((t) => t.length === 0)) {
          this.unsupported = true
          return { kind: 'none' }
        }
        const words = toks.map((t, i) => this.word(t, n.prefix && i === toks.length - 1))
        if (toks.length === 1 && !n.field) return words[0]!
        const key = `v:${textTsquery(n)}`
        this.verify.set(key, { node: n, words })
        return { kind: 'verified', key }
      }
      case 'equals':
        // The compiled query also asks, at the top, for the value's words with weight C: the
        // writer puts every analysis value among the words, so the facts imply them (but in
        // a lossy vector, whose chunk SQL counts).
        if (n.key.includes(TERM_SEP)) this.unsupported = true
        return this.term(`e:${n.key}${TERM_SEP}${n.folded}`)
      case 'range': {
        if (n.key.includes(TERM_SEP)) this.unsupported = true
        const key = `n*:${n.key}${TERM_SEP}${n.min ? `${n.min.strict ? '>' : '>='}${n.min.value}` : ''}${TERM_SEP}${n.max ? `${n.max.strict ? '<' : '<='}${n.max.value}` : ''}`
        this.ranges.set(key, n)
        return { kind: 'terms', key }
      }
      case 'not':
        return { kind: 'not', item: this.plan(n.item) }
      case 'and':
      case 'or':
        return { kind: n.kind, items: n.items.map((i) => this.plan(i)) }
    }
  }
}

function addLeaf(leaves: Leaves, key: string, chunk: number, posts: Uint8Array): void {
  let m = leaves.get(key)
  if (!m) leaves.set(key, (m = new Map()))
  const list = m.get(chunk)
  if (list) list.push(posts)
  else m.set(chunk, [posts])
}

type PostRow = { term: string; chunk: number; posts: Buffer }

/** The range's test, as team-query.ts tests the facts, of the number a `n:` term holds (its text from `$3`). */
function rangeTest(n: Extract<ResolvedNode, { kind: 'range' }>, at: number): { sql: string; params: unknown[] } {
  const params: unknown[] = []
  const { path, vars } = rangePath(n.min, n.max, (v) => `$${at + params.push(v)}`)
  return { sql: `jsonb_path_exists(jsonb_build_array(substr(term, $3::integer)::jsonb), ${path}, ${vars})`, params }
}

class Evaluator {
  readonly verified = new Map<string, Map<number, Uint32Array>>()
  constructor(
    readonly leaves: Leaves,
    readonly bits: number,
    readonly chunk: number,
    readonly universe: Uint32Array
  ) {}

  leaf(key: string): Uint32Array {
    const s = emptySet(this.bits)
    for (const p of this.leaves.get(key)?.get(this.chunk) ?? []) orPosts(s, p, this.bits)
    return s
  }

  eval(p: Plan): Uint32Array {
    switch (p.kind) {
      case 'terms':
        return this.leaf(p.key)
      case 'verified':
        return this.verified.get(p.key)?.get(this.chunk)?.slice() ?? emptySet(this.bits)
      case 'none':
        return emptySet(this.bits)
      case 'not': {
        const s = this.eval(p.item)
        notWithin(s, this.universe)
        return s
      }
      case 'and':
      case 'or': {
        const s = this.eval(p.items[0]!)
        for (const i of p.items.slice(1)) (p.kind === 'and' ? andInto : orInto)(s, this.eval(i))
        return s
      }
    }
  }
}

/**
 * The compiled query's exact count from the postings, or null when they cannot give it (the
 * caller counts by SQL). Runs in the caller's (REPEATABLE READ) transaction.
 */
export async function postingsCount(c: pg.ClientBase, schema: string, compiled: TeamCompiled): Promise<number | null> {
  const f = compiled.filters
  if (f.callId) return null
  const s = q(schema)
  const planner = new Planner()
  const plan: Plan = compiled.node ? planner.plan(compiled.node) : { kind: 'and', items: [] }
  if (planner.unsupported) return null
  const bits = await chunkBits(c, schema)
  const size = 2 ** bits

  const chunkRows = await c.query<{ chunk: number; sql: boolean }>(
    `SELECT chunk, bool_or(sql) AS sql FROM (
       SELECT chunk, term = 'x' AS sql FROM ${s}.count_posts WHERE term IN ('all', 'x')
       UNION ALL SELECT chunk, true FROM ${s}.count_dirty) k GROUP BY chunk ORDER BY chunk`
  )
  const bySql = chunkRows.rows.filter((r) => r.sql).map((r) => r.chunk)
  const clean = chunkRows.rows.filter((r) => !r.sql).map((r) => r.chunk)
  // Mostly unbuilt: the query's own count reads no more.
  if (bySql.length > Math.max(4, clean.length)) return null

  // Leaves: exact terms, then the ranges of terms.
  const leaves: Leaves = new Map()
  const scopeKeys = f.scopes.map((ids) => ids.map((id) => `s:${id}`))
  const exact = [...planner.terms.keys(), ...scopeKeys.flat(), 'all']
  const rows = await c.query<PostRow>(`SELECT term, chunk, posts FROM ${s}.count_posts WHERE term = ANY($1::text[])`, [exact])
  for (const r of rows.rows) addLeaf(leaves, r.term, r.chunk, r.posts)
  const rangeRead = async (key: string, lo: string, hi: string, test?: Extract<ResolvedNode, { kind: 'range' }>): Promise<boolean> => {
    const t = test ? rangeTest(test, 3) : null
    const r = await c.query<PostRow>(
      `SELECT term, chunk, posts FROM ${s}.count_posts WHERE term >= $1 AND term < $2${t ? ` AND ${t.sql}` : ''} LIMIT ${MAX_RANGE_ROWS + 1}`,
      t ? [lo, hi, lo.length + 1, ...t.params] : [lo, hi]
    )
    if (r.rows.length > MAX_RANGE_ROWS) return false
    for (const x of r.rows) addLeaf(leaves, key, x.chunk, x.posts)
    return true
  }
  for (const p of planner.prefixes) if (!(await rangeRead(`w*:${p}`, `w:${p}`, `w:${p}\u{10FFFF}`))) return null
  for (const [key, n] of planner.ranges) {
    const lo = `n:${n.key}${TERM_SEP}`
    if (!(await rangeRead(key, lo, `n:${n.key}\x20`, n))) return null
  }

  // The date range: its whole UTC days from their postings, the calls of its partial days by number.
  let dayPlan: Plan | null = null
  const edgeNums = new Map<number, number[]>()
  if (f.from !== null || f.to !== null) {
    const first = f.from === null ? -Infinity : Math.ceil(f.from / DAY_MS)
    const end = f.to === null ? Infinity : Math.floor(f.to / DAY_MS)
    const edges: Array<[number | null, number | null]> = []
    if (first < end) {
      const days = await c.query<PostRow>(
        `SELECT term, chunk, posts FROM ${s}.count_posts WHERE term >= 'd:' AND term < 'd;' LIMIT ${MAX_RANGE_ROWS + 1}`
      )
      if (days.rows.length > MAX_RANGE_ROWS) return null
      for (const r of days.rows) {
        const day = dayOfTerm(r.term)
        if (day >= first && day < end) addLeaf(leaves, 'days', r.chunk, r.posts)
      }
      if (f.from !== null) edges.push([f.from, first * DAY_MS])
      if (f.to !== null) edges.push([end * DAY_MS, f.to])
    } else edges.push([f.from, f.to])
    for (const [lo, hi] of edges) {
      if (lo !== null && hi !== null && lo >= hi) continue
      const conds: string[] = []
      const params: number[] = []
      if (lo !== null) conds.push(`call_at >= $${params.push(lo)}`)
      if (hi !== null) conds.push(`call_at < $${params.push(hi)}`)
      const r = await c.query<{ num: string }>(
        `SELECT num FROM ${s}.calls WHERE ${conds.join(' AND ')} LIMIT ${MAX_EDGE_CALLS + 1}`,
        params
      )
      if (r.rows.length > MAX_EDGE_CALLS) return null
      for (const { num } of r.rows) {
        const n = Number(num)
        const chunk = Math.floor(n / size)
        const list = edgeNums.get(chunk)
        if (list) list.push(n - chunk * size)
        else edgeNums.set(chunk, [n - chunk * size])
      }
    }
    dayPlan = first < end ? { kind: 'terms', key: 'days' } : { kind: 'none' }
  }

  const evaluatorFor = (chunk: number): Evaluator => {
    const all = emptySet(bits)
    for (const p of leaves.get('all')?.get(chunk) ?? []) orPosts(all, p, bits)
    return new Evaluator(leaves, bits, chunk, all)
  }

  // Phrases and words of one field: candidates from their words' postings, checked by SQL.
  const verified = new Map<string, Map<number, Uint32Array>>()
  for (const [key, v] of planner.verify) {
    const nums: number[] = []
    for (const chunk of clean) {
      const e = evaluatorFor(chunk)
      for (const o of offsetsOf(e.eval({ kind: 'and', items: v.words }))) nums.push(chunk * size + o)
      if (nums.length > MAX_VERIFY) return null
    }
    const byChunk = new Map<number, Uint32Array>()
    if (nums.length > 0) {
      const r = await c.query<{ num: string }>(`SELECT num FROM ${s}.calls c WHERE c.num = ANY($1::bigint[]) AND c.search @@ $2::tsquery`, [
        nums,
        textTsquery(v.node)
      ])
      for (const { num } of r.rows) {
        const n = Number(num)
        const chunk = Math.floor(n / size)
        let set = byChunk.get(chunk)
        if (!set) byChunk.set(chunk, (set = emptySet(bits)))
        const o = n - chunk * size
        set[o >> 5]! |= 1 << (o & 31)
      }
    }
    verified.set(key, byChunk)
  }

  let total = 0
  for (const chunk of clean) {
    const e = evaluatorFor(chunk)
    for (const [k, v] of verified) e.verified.set(k, v)
    const set = plan.kind === 'and' && plan.items.length === 0 ? e.universe.slice() : e.eval(plan)
    andInto(set, e.universe)
    if (dayPlan) {
      const inRange = e.eval(dayPlan)
      for (const o of edgeNums.get(chunk) ?? []) inRange[o >> 5]! |= 1 << (o & 31)
      andInto(set, inRange)
    }
    for (const keys of scopeKeys) andInto(set, e.eval({ kind: 'or', items: keys.map((key) => ({ kind: 'terms', key })) }))
    total += popcount(set)
  }

  if (bySql.length > 0) {
    const n = compiled.params.length
    const ranges = bySql.map((chunk, i) => `(c.num >= $${n + 2 * i + 1} AND c.num < $${n + 2 * i + 2})`)
    const where = [...compiled.where, `(${ranges.join(' OR ')})`]
    const r = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${s}.calls c WHERE ${where.join(' AND ')}`, [
      ...compiled.params,
      ...bySql.flatMap((chunk) => [String(chunk * size), String((chunk + 1) * size)])
    ])
    total += Number(r.rows[0]!.n)
  }
  return total
}
