import type { SearchQuery } from '../../shared/domain'
import type { Bound, ResolvedNode } from '../../shared/query/ast'
import { callIdSpellings } from '../../shared/query/call-id'
import { tokensOf } from '../../shared/query/parse'
import { analyzeQuery, type KeyRef } from '../../shared/query/resolve'
import { step } from '../../shared/query/work'
import type { CallTypeNames, ScopeRef } from '../cache'
import { CallsightError } from '../errors'
import { invalidText, scopesFor, withFilters } from '../search/query/compile'
import { compileReview } from '../search/review/review-filter'
import { q } from './connection'

/**
 * The search language (the core parser's tree, shared/query) compiled to PostgreSQL over the
 * team cache's `calls c` (schema 6, pg-migration-6.ts). Text becomes tsquery over the folded
 * `search` tsvector (title A, summary B, analysis values C); `key:value` and ranges become
 * tests of the `facts` jsonb. Every value the user typed travels as a parameter: a tsquery is
 * built from folded words (letters and digits only, quoted) and passed as one, never spliced
 * into the SQL text. What PostgreSQL cannot answer as the local search does is refused.
 */

export interface TeamCatalog {
  scopes: readonly ScopeRef[]
  keys: readonly KeyRef[]
  typeNames: CallTypeNames
}

export type TeamOrder = 'date_desc' | 'date_asc'

export interface TeamCompiled {
  /** Predicates on c, ANDed; parameters numbered from $1 in `params`. */
  where: string[]
  params: unknown[]
  order: TeamOrder
  /** Some filter can match nothing (no scope vouches for it). */
  empty: boolean
  /** The resolved tree with the filter bar's analysis filters: what "matched in" reads. */
  node: ResolvedNode | null
  /** The filters beside the tree, as the count's postings take them (team-postings-count.ts). */
  filters: { from: number | null; to: number | null; scopes: number[][]; callId: boolean }
  /** A phrase (words in a row) is asked for: PostgreSQL's planner counts its rows as its words' AND. */
  phrase: boolean
}

/** Whether the tree asks for words in a row anywhere (a phrase, or a quoted value of a key). */
function hasPhrase(n: ResolvedNode | null): boolean {
  if (n === null) return false
  switch (n.kind) {
    case 'text':
      return n.tokens.length > 1
    case 'not':
      return hasPhrase(n.item)
    case 'and':
    case 'or':
      return n.items.some(hasPhrase)
    default:
      return false
  }
}

type Part = { tsq: string } | { sql: string }

const WEIGHTS: Record<string, string> = { title: 'A', summary: 'B', analysis: 'C' }

function refuse(what: string): CallsightError {
  return new CallsightError('InvalidInput', `The team cache cannot answer ${what}; search the local cache for it.`, {
    hint: 'Leave it out of a team cache search.'
  })
}

/** Parameters as PostgreSQL numbers them. */
class Params {
  readonly list: unknown[] = []
  add(v: unknown): string {
    this.list.push(v)
    return `$${this.list.length}`
  }
}

/** A text term's tsquery, as the compiled query tests it (`c.search @@ $1::tsquery`). */
export function textTsquery(n: Extract<ResolvedNode, { kind: 'text' }>): string {
  return phraseTsq(n.tokens, n.prefix, n.field ? WEIGHTS[n.field]! : '')
}

/**
 * A range term's test of a jsonb array of values, as `jsonb_path_exists`'s path and variables:
 * a number within the bounds, which travel as parameters (`param` adds one and names it).
 */
export function rangePath(min: Bound | null, max: Bound | null, param: (v: number) => string): { path: string; vars: string } {
  const conds = ['@.type() == "number"']
  const vars: string[] = []
  if (min) {
    conds.push(`@ ${min.strict ? '>' : '>='} $min`)
    vars.push(`'min', ${param(min.value)}::float8`)
  }
  if (max) {
    conds.push(`@ ${max.strict ? '<' : '<='} $max`)
    vars.push(`'max', ${param(max.value)}::float8`)
  }
  return { path: `'$[*] ? (${conds.join(' && ')})'`, vars: `jsonb_build_object(${vars.join(', ')})` }
}

/** A word or phrase as tsquery: adjacent words (`<->`), the last a prefix, in one column if weighted. */
function phraseTsq(tokens: readonly string[], prefix: boolean, weight: string): string {
  return tokens
    .map((t, i) => {
      const star = prefix && i === tokens.length - 1 ? '*' : ''
      const label = star + weight
      return `'${t.replace(/['\\]/g, '')}'${label ? `:${label}` : ''}`
    })
    .join(' <-> ')
}

class Compiler {
  constructor(readonly p: Params) {}

  /** A tsquery as a predicate. */
  private match(tsq: string): string {
    return `c.search @@ ${this.p.add(tsq)}::tsquery`
  }

  toSql(part: Part): string {
    return 'tsq' in part ? this.match(part.tsq) : part.sql
  }

  equals(key: string, folded: string): string {
    return `coalesce(c.facts @> jsonb_build_object(${this.p.add(key)}::text, jsonb_build_array(${this.p.add(folded)}::text)), false)`
  }

  range(key: string, min: Bound | null, max: Bound | null): string {
    const { path, vars } = rangePath(min, max, (v) => this.p.add(v))
    return `coalesce(jsonb_path_exists(c.facts -> ${this.p.add(key)}::text, ${path}, ${vars}), false)`
  }

  part(n: ResolvedNode): Part {
    step()
    switch (n.kind) {
      case 'text': {
        // The note field lives on workstations only, as it is outside the local index.
        if (n.field === 'note' || n.tokens.length === 0) return { sql: 'false' }
        return { tsq: phraseTsq(n.tokens, n.prefix, n.field ? WEIGHTS[n.field]! : '') }
      }
      case 'equals':
        return { sql: this.equals(n.key, n.folded) }
      case 'range':
        return { sql: this.range(n.key, n.min, n.max) }
      case 'not': {
        const inner = this.part(n.item)
        // IS NOT TRUE: a call without the column (NULL) is one the term does not find.
        return 'tsq' in inner ? { tsq: `!(${inner.tsq})` } : { sql: `(${inner.sql}) IS NOT TRUE` }
      }
      case 'or':
      case 'and': {
        const parts = n.items.map((i) => this.part(i))
        const op = n.kind === 'or' ? ' | ' : ' & '
        if (parts.every((x) => 'tsq' in x)) return { tsq: `(${parts.map((x) => (x as { tsq: string }).tsq).join(op)})` }
        return { sql: `(${parts.map((x) => this.toSql(x)).join(n.kind === 'or' ? ' OR ' : ' AND ')})` }
      }
    }
  }
}

/** Pure: the same query and catalog give the same SQL and parameters. */
export function compileTeamQuery(query: SearchQuery, catalog: TeamCatalog, schema: string): TeamCompiled {
  if (compileReview(query.review) !== null) throw refuse('review filters (annotations live on workstations)')
  if ((query.fields ?? []).length > 0) throw refuse('filters on record fields (agent:, duration:)')
  const analyzed = analyzeQuery(query.text, { keys: catalog.keys })
  if (analyzed.errors.length > 0) throw invalidText(query.text, analyzed.errors[0]!)
  const node = withFilters(analyzed.node, query.analysis)
  const p = new Params()
  const c = new Compiler(p)
  const where: string[] = []
  let empty = false
  const scopes = scopesFor(query, catalog.scopes, catalog.typeNames)
  if (query.from !== null) where.push(`c.call_at >= ${p.add(query.from)}`)
  if (query.to !== null) where.push(`c.call_at < ${p.add(query.to)}`)
  for (const ids of scopes) {
    if (ids.length === 0) empty = true
    else
      where.push(
        `EXISTS (SELECT 1 FROM ${q(schema)}.scope_members m WHERE m.call_id = c.call_id AND m.scope_id = ANY(${p.add(ids)}::int[]))`
      )
  }
  if (analyzed.callId !== undefined) where.push(`c.call_id = ANY(${p.add(callIdSpellings(analyzed.callId))}::text[])`)
  let ranked = false
  if (node) {
    // The top's ANDed text terms are one tsquery (one index search); an equals term also
    // asks for its value's words among the analysis words (weight C), so that a rare value
    // is found through the index and the facts only confirm it.
    const items = node.kind === 'and' ? node.items : [node]
    const tsq: string[] = []
    for (const item of items) {
      const part = c.part(item)
      if ('tsq' in part) {
        tsq.push(part.tsq)
        if (item.kind !== 'not') ranked = true
        continue
      }
      where.push(part.sql)
      if (item.kind === 'equals') {
        const tokens = tokensOf(item.value)
        if (tokens.length > 0) tsq.push(phraseTsq(tokens, false, 'C'))
      }
    }
    if (tsq.length > 0) where.push(`c.search @@ ${p.add(tsq.join(' & '))}::tsquery`)
  }
  if (query.sort === 'relevance' && ranked) throw refuse('the relevance order (bm25 is the local index’s own); sort by date')
  return {
    where,
    params: p.list,
    order: query.sort === 'date_asc' ? 'date_asc' : 'date_desc',
    empty,
    node,
    filters: { from: query.from, to: query.to, scopes: scopes.map((ids) => [...ids]), callId: analyzed.callId !== undefined },
    phrase: hasPhrase(node)
  }
}
