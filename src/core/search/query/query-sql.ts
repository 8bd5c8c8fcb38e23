import type { Bound, ResolvedNode } from '../../../shared/query/ast'
import { shortPrefixToken } from '../../cache/ingest/short-prefixes'
import { tokensOf } from '../../../shared/query/parse'
import { step } from '../../../shared/query/work'

/**
 * A resolved query (shared/query) as SQL over `calls c`. Text terms become one FTS5 MATCH
 * expression wherever they can (AND, OR and NOT of text terms are FTS5's own operators);
 * analysis terms, and any OR or NOT that mixes them with text, become predicates, a text
 * term inside them a probe of the index for that row. Every token is emitted quoted, so no
 * user text reaches FTS5 as syntax.
 */

/** The full terms a prefix stands for; null: too many (a costly prefix); undefined: not looked up. */
export type PrefixExpander = (prefix: string) => readonly string[] | null | undefined

export interface QuerySqlContext {
  expand: PrefixExpander
  /** Ids of each analysis key's (key, friendly name) pairs. */
  keyIds: ReadonlyMap<string, readonly number[]>
  /** One- and two-letter prefixes alone are probed in the short-prefix index (schema 17 on). */
  shortPrefixIndex?: boolean
}

export interface TextSql {
  /** FTS5 expression the call must match; null when the query has no positive text term at the top. */
  match: string | null
  /** Predicates on c, ANDed. */
  where: string[]
  params: unknown[]
  /** A prefix in `match` covers too many terms to expand: probing it row by row is slow. */
  costlyProbe: boolean
  /** `match` holds terms the user typed (not only narrowing of analysis values): relevance can rank. */
  ranked: boolean
  /** `match` split around its short prefixes (shortSplit), when it has any beside other terms. */
  split: ShortSplit | null
}

/**
 * An AND of text terms whose positive terms include one- or two-letter prefixes beside other
 * terms ("mesipame m", typed on the way to "mesipame miyo"). As one FTS5 expression, calls_fts
 * (no prefix index) would merge the doclist of every word under the short prefix, ~1.5 s at
 * 1,000,000 calls for "m", on every keystroke; the short-prefix index holds each prefix as one
 * term. So the rest (`long`, with the negated terms) is asked of calls_fts and each short
 * prefix (`short`, as its FTS5 expression "m"*) of the short-prefix index, and the sets are
 * intersected: the same matches.
 */
export interface ShortSplit {
  long: string
  short: string[]
}

/** The AND's parts split (null: no short prefix, nothing else beside it, or no short-prefix index). */
export function shortSplit(pos: readonly FtsPart[], neg: readonly FtsPart[], ctx: QuerySqlContext): ShortSplit | null {
  if (ctx.shortPrefixIndex !== true) return null
  const short = pos.filter((p) => shortPrefixToken(p.fts) !== null)
  const long = pos.filter((p) => shortPrefixToken(p.fts) === null)
  if (short.length === 0 || long.length === 0) return null
  return { long: ftsAnd(long, neg).fts, short: short.map((p) => p.fts) }
}

type Part = { fts: string; costly: boolean } | { sql: string; params: unknown[] }

const ids = (list: readonly number[]): string => list.map((n) => String(Math.trunc(n))).join(',')

/** An FTS expression as a per-row predicate: a rowid-bounded doclist seek. */
const PROBE = 'EXISTS (SELECT 1 FROM calls_fts WHERE calls_fts MATCH ? AND calls_fts.rowid = c.id)'

/** The same per-row predicate on the short-prefix index, for a short prefix alone ("ka"* as "ka"). */
const SHORT_PROBE = 'EXISTS (SELECT 1 FROM calls_fts_short WHERE calls_fts_short MATCH ? AND calls_fts_short.rowid = c.id)'

function toSql(p: Part, ctx: QuerySqlContext): { sql: string; params: unknown[] } {
  if (!('fts' in p)) return p
  const short = ctx.shortPrefixIndex === true ? shortPrefixToken(p.fts) : null
  return short === null ? { sql: PROBE, params: [p.fts] } : { sql: SHORT_PROBE, params: [short] }
}

/** Tokens never hold a double quote (the token class excludes it), so quoting needs no escaping. */
export function phraseFts(
  tokens: readonly string[],
  prefix: boolean,
  column: string | null,
  expand: PrefixExpander
): { fts: string; costly: boolean } {
  let body = `"${tokens.join(' ')}"${prefix ? '*' : ''}`
  let costly = false
  if (prefix) {
    const terms = expand(tokens[tokens.length - 1]!)
    if (terms && terms.length > 0) {
      const head = tokens.slice(0, -1)
      body = terms.length === 1 ? `"${[...head, terms[0]].join(' ')}"` : `(${terms.map((t) => `"${[...head, t].join(' ')}"`).join(' OR ')})`
    } else costly = terms === null
  }
  return { fts: column ? `${column} : ${body}` : body, costly }
}

/** An analysis item of the key passes `cond` (its parameters after the key's). */
export function analysisExists(keyIds: readonly number[] | undefined, cond: string, params: unknown[]): { sql: string; params: unknown[] } {
  if (!keyIds || keyIds.length === 0) return { sql: '0', params: [] }
  // The dictionary's matching ids are read once per statement (an uncorrelated subquery),
  // then each call's list is tested for them (analysis_has: cache-db registers it).
  const matching = `SELECT analysis_ids(a.id) FROM analysis_values a WHERE a.key_id IN (${ids(keyIds)}) AND ${cond}`
  return { sql: `analysis_has((SELECT l.items FROM analysis_lists l WHERE l.call = c.id), (${matching}))`, params }
}

/** Folded equality: `fold_text` is shared foldText, registered on the reader's connection. */
export const FOLDED_EQUALS = 'fold_text(a.value) = ?'

function boundsSql(min: Bound | null, max: Bound | null): { cond: string; params: unknown[] } {
  const conds = ['a.value_num IS NOT NULL']
  const params: unknown[] = []
  if (min) {
    conds.push(`a.value_num ${min.strict ? '>' : '>='} ?`)
    params.push(min.value)
  }
  if (max) {
    conds.push(`a.value_num ${max.strict ? '<' : '<='} ?`)
    params.push(max.value)
  }
  return { cond: conds.join(' AND '), params }
}

/**
 * Each node's part, made once per context. An AND asks for its items' parts to sort them
 * (splitAnd) and again to join them, a negated item for its inner part and its own, the
 * bitmap evaluator for every node it visits: without this each nesting level doubled the
 * work, and `(a OR -b ` nested 20 times took 40 s. With it a compile is linear in the tree.
 */
const made = new WeakMap<QuerySqlContext, WeakMap<ResolvedNode, Part>>()

/** A node as one FTS5 expression when it is text alone, else as a predicate on c. */
export function textPart(n: ResolvedNode, ctx: QuerySqlContext): Part {
  step()
  let parts = made.get(ctx)
  if (parts === undefined) made.set(ctx, (parts = new WeakMap()))
  let part = parts.get(n)
  if (part === undefined) parts.set(n, (part = partOf(n, ctx)))
  return part
}

function partOf(n: ResolvedNode, ctx: QuerySqlContext): Part {
  switch (n.kind) {
    case 'text':
      // `note` is not in the index: a field outside it is answered by its own predicate (none yet).
      if (n.field === 'note') return { sql: '0', params: [] }
      return phraseFts(n.tokens, n.prefix, n.field, ctx.expand)
    case 'equals':
      return analysisExists(ctx.keyIds.get(n.key), FOLDED_EQUALS, [n.folded])
    case 'range': {
      const b = boundsSql(n.min, n.max)
      return analysisExists(ctx.keyIds.get(n.key), b.cond, b.params)
    }
    case 'not': {
      const inner = toSql(textPart(n.item, ctx), ctx)
      return { sql: `NOT ${inner.sql}`, params: inner.params }
    }
    case 'or': {
      const parts = n.items.map((i) => textPart(i, ctx))
      if (parts.every((p) => 'fts' in p)) {
        const fts = parts as Array<{ fts: string; costly: boolean }>
        return { fts: `(${fts.map((p) => p.fts).join(' OR ')})`, costly: fts.some((p) => p.costly) }
      }
      const sql = parts.map((p) => toSql(p, ctx))
      return { sql: `(${sql.map((s) => s.sql).join(' OR ')})`, params: sql.flatMap((s) => s.params) }
    }
    case 'and': {
      const split = splitAnd(n.items, ctx)
      if (split.other.length === 0 && split.pos.length > 0) return ftsAnd(split.pos, split.neg)
      const sql = n.items.map((i) => toSql(textPart(i, ctx), ctx))
      return { sql: `(${sql.map((s) => s.sql).join(' AND ')})`, params: sql.flatMap((s) => s.params) }
    }
  }
}

export type FtsPart = { fts: string; costly: boolean }

/** An AND's terms: positive text, negated text, and the rest (predicates). */
export function splitAnd(
  items: readonly ResolvedNode[],
  ctx: QuerySqlContext
): { pos: FtsPart[]; neg: FtsPart[]; other: Array<{ node: ResolvedNode; part: Part }> } {
  const pos: FtsPart[] = []
  const neg: FtsPart[] = []
  const other: Array<{ node: ResolvedNode; part: Part }> = []
  for (const item of items) {
    if (item.kind === 'not') {
      const inner = textPart(item.item, ctx)
      if ('fts' in inner) {
        neg.push(inner)
        continue
      }
    }
    const part = textPart(item, ctx)
    if ('fts' in part) pos.push(part)
    else other.push({ node: item, part })
  }
  return { pos, neg, other }
}

/** `(a AND b) NOT (c OR d)`: FTS5's NOT is binary, so the negated terms go after one positive group. */
export function ftsAnd(pos: readonly FtsPart[], neg: readonly FtsPart[]): FtsPart {
  const head = pos.length === 1 ? pos[0]!.fts : pos.map((p) => p.fts).join(' AND ')
  const costly = pos.some((p) => p.costly)
  if (neg.length === 0) return { fts: head, costly }
  return { fts: `(${head}) NOT (${ftsOr(neg).fts})`, costly }
}

/** Any of the parts (bare when one). */
export function ftsOr(parts: readonly FtsPart[]): FtsPart {
  return { fts: parts.length === 1 ? parts[0]!.fts : parts.map((p) => p.fts).join(' OR '), costly: parts.some((p) => p.costly) }
}

/**
 * The top of a query: its ANDed terms split into one MATCH (text), predicates (analysis,
 * mixed OR/NOT), and a top-level `key:value` also narrows the MATCH by the value's words on
 * the analysis column, so a rare value is found through the index and the predicate only
 * confirms it. A query of negated text alone is a predicate: FTS5 cannot match "not x".
 */
export function compileText(node: ResolvedNode | null, ctx: QuerySqlContext): TextSql {
  const out: TextSql = { match: null, where: [], params: [], costlyProbe: false, ranked: false, split: null }
  if (!node) return out
  const items = node.kind === 'and' ? node.items : [node]
  const { pos, neg, other } = splitAnd(items, ctx)
  out.ranked = pos.length > 0
  const narrowing: FtsPart[] = []
  for (const { node: n, part } of other) {
    const s = toSql(part, ctx)
    out.where.push(s.sql)
    out.params.push(...s.params)
    if (n.kind === 'equals') {
      const tokens = tokensOf(n.value)
      if (tokens.length > 0) narrowing.push(phraseFts(tokens, false, 'analysis', ctx.expand))
    }
  }
  const all = [...pos, ...narrowing]
  if (all.length > 0) {
    const m = ftsAnd(all, neg)
    out.match = m.fts
    out.costlyProbe = m.costly
    out.split = shortSplit(all, neg, ctx)
  } else if (neg.length > 0) {
    out.where.push(`NOT ${PROBE}`)
    out.params.push(ftsOr(neg).fts)
  }
  return out
}

/** Prefixes whose expansion compileText will ask for. */
export function prefixesIn(node: ResolvedNode | null): string[] {
  const out = new Set<string>()
  const walk = (n: ResolvedNode): void => {
    if (n.kind === 'text' && n.prefix) out.add(n.tokens[n.tokens.length - 1]!)
    else if (n.kind === 'and' || n.kind === 'or') n.items.forEach(walk)
    else if (n.kind === 'not') walk(n.item)
  }
  if (node) walk(node)
  return [...out]
}
