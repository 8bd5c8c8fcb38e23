import type { SearchQuery } from '../../shared/domain'
import type { ScopeFilters, ScopeRef, SqlPiece } from '../cache'
import { parseText, phraseOf, toMatch, type PrefixExpander } from './fts-query'
import { compileReview } from './review-filter'

/** The order of a result: relevance only when there is user text to rank by (else newest first). */
export type ResultOrder = 'date_desc' | 'date_asc' | 'relevance'

/**
 * A SearchQuery as SQL pieces over `calls c`. Conditions other than the text are plain
 * predicates (answered per row through primary keys), so any plan can use them.
 */
export interface CompiledQuery {
  /** Predicates on c, ANDed. */
  where: readonly string[]
  params: readonly unknown[]
  /** The FTS5 MATCH expression: user text, plus analysis values to narrow key = value. */
  match: string | null
  order: ResultOrder
  /** A prefix covers too many terms to expand: probing FTS5 row by row would be slow. */
  costlyProbe: boolean
  /** Some filter can match nothing (unknown key, no scope with those filters). */
  empty: boolean
  from: number | null
  to: number | null
  /** No text and no filter but the date range: facets can read the running totals. */
  dateOnly: boolean
  /**
   * Review filters: the ids of the calls their annotations could match (a superset), read
   * from the review tables; null without review filters that need an annotation.
   */
  candidates: SqlPiece | null
  /** Equal keys, equal rows in equal order: what per-query memory is kept under. */
  key: string
}

/** What a query is compiled against: read from the cache by the caller (search/catalog.ts). */
export interface QueryCatalog {
  scopes: readonly ScopeRef[]
  /** Ids of each analysis key's (key, friendly name) pairs. */
  keyIds: ReadonlyMap<string, readonly number[]>
  /** The terms each prefix of the text stands for; null when too many to expand. */
  expansions: ReadonlyMap<string, readonly string[] | null>
  /** Moves with writes to annotations and review lists: part of the key of a query that filters by them. */
  reviewVersion?: number
}

const isSubset = <T>(a: readonly T[], b: readonly T[]): boolean => a.every((x) => b.includes(x))

/**
 * The scopes that vouch for each scope filter. Each filter is a separate fact about a call,
 * and any scope that returned the call can attest it: callTypes S by a scope whose
 * callTypes is a non-empty subset of S; direction d by a scope with direction d; results
 * 'answered' by an 'answered' scope, a list L by a scope whose list is a subset of L;
 * hasNewRequest b by a scope with b. One list per active filter; an empty list matches
 * nothing; no lists means no scope filter.
 */
export function scopesFor(query: SearchQuery, scopes: readonly ScopeRef[]): number[][] {
  const { callTypes, direction, results, hasNewRequest } = query
  const tests: Array<(f: ScopeFilters) => boolean> = []
  if (callTypes.length > 0) tests.push((f) => f.callTypes.length > 0 && isSubset(f.callTypes, callTypes))
  if (direction !== null) tests.push((f) => f.direction === direction)
  if (results === 'answered') tests.push((f) => f.results === 'answered')
  if (Array.isArray(results)) tests.push((f) => Array.isArray(f.results) && isSubset(f.results, results))
  if (hasNewRequest !== null) tests.push((f) => f.hasNewRequest === hasNewRequest)
  return tests.map((test) => scopes.filter((s) => test(s.filters)).map((s) => s.id))
}

const ids = (list: readonly number[]): string => list.map((n) => String(Math.trunc(n))).join(',')

/** The prefixes in the text whose terms compileQuery wants in `QueryCatalog.expansions`. */
export function prefixesOf(text: string): string[] {
  return parseText(text).elements.filter((e) => e.prefix).map((e) => e.tokens[e.tokens.length - 1]!)
}

/** Pure: the same query and catalog always give the same SQL. */
export function compileQuery(query: SearchQuery, catalog: QueryCatalog): CompiledQuery {
  const where: string[] = []
  const params: unknown[] = []
  let empty = false
  if (query.from !== null) {
    where.push('c.call_at >= ?')
    params.push(query.from)
  }
  if (query.to !== null) {
    where.push('c.call_at < ?')
    params.push(query.to)
  }
  for (const scopeIds of scopesFor(query, catalog.scopes)) {
    if (scopeIds.length === 0) empty = true
    else where.push(`EXISTS (SELECT 1 FROM scope_members m WHERE m.call = c.id AND m.scope IN (${ids(scopeIds)}))`)
  }

  // A prefix the catalog could not expand (too many terms) stays a prefix, and a row-by-row
  // probe of it is costly; one it has no entry for stays a prefix too.
  const expand: PrefixExpander = (prefix) => {
    const terms = catalog.expansions.get(prefix)
    return terms === undefined || terms === null ? null : [...terms]
  }
  const parsed = parseText(query.text)
  const costlyProbe = parsed.elements.some((e) => e.prefix && catalog.expansions.get(e.tokens[e.tokens.length - 1]!) === null)
  const userMatch = toMatch(parsed, null, expand)
  const matchParts: string[] = userMatch ? [userMatch] : []

  for (const f of query.analysis) {
    const keys = catalog.keyIds.get(f.key)
    if (!keys) {
      empty = true
      continue
    }
    if (f.kind === 'equals') {
      where.push(`EXISTS (SELECT 1 FROM analysis a WHERE a.call = c.id AND a.key_id IN (${ids(keys)}) AND a.value = ?)`)
      params.push(f.value)
      // The value's words must be in the call's analysis text: lets the index find rare values.
      const element = phraseOf(f.value)
      if (element) matchParts.push(toMatch({ elements: [element] }, 'analysis') ?? '')
    } else {
      const conds = [`a.key_id IN (${ids(keys)})`, 'a.value_num IS NOT NULL']
      if (f.min !== null) {
        conds.push('a.value_num >= ?')
        params.push(f.min)
      }
      if (f.max !== null) {
        conds.push('a.value_num <= ?')
        params.push(f.max)
      }
      where.push(`EXISTS (SELECT 1 FROM analysis a WHERE a.call = c.id AND ${conds.join(' AND ')})`)
    }
  }
  const review = compileReview(query.review)
  if (review) {
    where.push(...review.where)
    params.push(...review.params)
  }
  const match = matchParts.length ? matchParts.join(' AND ') : null
  const order: ResultOrder = query.sort === 'relevance' ? (userMatch !== null ? 'relevance' : 'date_desc') : query.sort
  const dateConds = (query.from !== null ? 1 : 0) + (query.to !== null ? 1 : 0)
  return {
    where,
    params,
    match,
    order,
    costlyProbe,
    empty,
    from: query.from,
    to: query.to,
    dateOnly: !empty && matchParts.length === 0 && where.length === dateConds,
    candidates: review?.candidates ?? null,
    key: JSON.stringify(review ? [where, params, match, order, catalog.reviewVersion ?? 0] : [where, params, match, order])
  }
}
