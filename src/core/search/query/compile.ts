import type { FieldFilter, SearchQuery } from '../../../shared/domain'
import { foldText } from '../../../shared/text/fold'
import type { ScopeFilters, ScopeRef, SqlPiece } from '../../cache'
import { CallTypeNames } from '../../cache'
import type { QueryError, ResolvedNode } from '../../../shared/query/ast'
import { analyzeQuery, type KeyRef } from '../../../shared/query/resolve'
import { CallsightError } from '../../errors'
import { analysisExists, compileText, FOLDED_EQUALS, phraseFts, prefixesIn, type PrefixExpander, type ShortSplit } from './query-sql'
import { tokensOf } from '../../../shared/query/parse'
import { callIdSpellings } from '../../../shared/query/call-id'
import { describeQueryError } from '../../../shared/query/messages'
import { compileReview, type ReviewDriver } from '../review/review-filter'
import { shortPrefixToken } from '../../cache/ingest/short-prefixes'

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
  /**
   * When `match` is one short prefix alone ("ka"*) and the cache has the short-prefix index:
   * the same rows as that index's MATCH expression ("ka"). Every plan but relevance reads it
   * there (calls_fts has no prefix index and would merge every word's doclist under it).
   */
  shortMatch?: string | null
  /**
   * `match` as a part for calls_fts and short prefixes for the short-prefix index (ShortSplit
   * in query-sql.ts), when it has short prefixes beside other terms: what the estimate reads.
   */
  split?: ShortSplit | null
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
  /** Review filters: an index of annotated calls in date order that holds every match (review-filter.ts). */
  reviewDriver: ReviewDriver | null
  /** The driver's rows may mostly fail the annotation's conditions: count the candidates first. */
  reviewSelective: boolean
  /** Equal keys, equal rows in equal order: what per-query memory is kept under. */
  key: string
  /** The text's resolved syntax tree: what "matched in" is computed from. */
  node: ResolvedNode | null
}

/** What a query is compiled against: read from the cache by the caller (search/catalog.ts). */
export interface QueryCatalog {
  scopes: readonly ScopeRef[]
  /** Ids of each analysis key's (key, friendly name) pairs. */
  keyIds: ReadonlyMap<string, readonly number[]>
  /** The analysis keys field terms name (`duygu:olumsuz`, `csat>=4`). */
  keys: readonly KeyRef[]
  /** The terms each prefix of the text stands for; null when too many to expand. */
  expansions: ReadonlyMap<string, readonly string[] | null>
  /** The account's call type catalog; without it, names compare by their Turkish-folded spelling. */
  typeNames?: CallTypeNames
  /** Moves with writes to annotations and review lists: part of the key of a query that filters by them. */
  reviewVersion?: number
  /** One- and two-letter prefixes are read from the short-prefix index (schema 17 on). */
  shortPrefixIndex?: boolean
}

const isSubset = <T>(a: readonly T[], b: readonly T[]): boolean => a.every((x) => b.includes(x))

/** Without a catalog every name stands for itself (its folded spelling) and none is refused. */
const SPELLING_ONLY = new CallTypeNames([])
const spelling = (names: CallTypeNames, name: string): string => names.scopeValue(name)

/**
 * The call type names of a query and of each scope as catalog Values, so a scope synced as
 * "Şikayet" answers `--types Complaint` and `--types ŞİKAYET`. An unknown query name is an
 * UnknownCallType error, as the service refuses it (with a catalog; without one, none is).
 */
export function resolveTypes(
  query: SearchQuery,
  scopes: readonly ScopeRef[],
  names: CallTypeNames | undefined
): { query: string[]; scopes: Map<number, string[]> } {
  const lookup = names ?? SPELLING_ONLY
  const wanted = names ? names.resolve(query.callTypes) : [...new Set(query.callTypes.map((n) => spelling(lookup, n)))]
  return { query: wanted, scopes: new Map(scopes.map((s) => [s.id, s.filters.callTypes.map((n) => spelling(lookup, n))])) }
}

/**
 * The scopes that vouch for each scope filter. Each filter is a separate fact about a call,
 * and any scope that returned the call can attest it: callTypes S by a scope whose
 * callTypes is a non-empty subset of S; direction d by a scope with direction d; results
 * 'answered' by an 'answered' scope, a list L by a scope whose list is a subset of L;
 * hasNewRequest b by a scope with b. One list per active filter; an empty list matches
 * nothing; no lists means no scope filter.
 */
export function scopesFor(query: SearchQuery, scopes: readonly ScopeRef[], names?: CallTypeNames): number[][] {
  const { direction, results, hasNewRequest } = query
  const types = resolveTypes(query, scopes, names)
  const callTypes = types.query
  const tests: Array<(f: ScopeFilters, id: number) => boolean> = []
  if (callTypes.length > 0) {
    tests.push((_f, id) => {
      const own = types.scopes.get(id) ?? []
      return own.length > 0 && isSubset(own, callTypes)
    })
  }
  if (direction !== null) tests.push((f) => f.direction === direction)
  if (results === 'answered') tests.push((f) => f.results === 'answered')
  if (Array.isArray(results)) tests.push((f) => Array.isArray(f.results) && isSubset(f.results, results))
  if (hasNewRequest !== null) tests.push((f) => f.hasNewRequest === hasNewRequest)
  return tests.map((test) => scopes.filter((s) => test(s.filters, s.id)).map((s) => s.id))
}

const ids = (list: readonly number[]): string => list.map((n) => String(Math.trunc(n))).join(',')

/** The query text's errors, each with the span to underline; none when it can run. */
export function textErrors(text: string, keys: readonly KeyRef[]): QueryError[] {
  return analyzeQuery(text, { keys }).errors
}

/** The prefixes in the text whose terms compileQuery wants in `QueryCatalog.expansions`. */
export function prefixesOf(text: string, keys: readonly KeyRef[] = []): string[] {
  return prefixesIn(analyzeQuery(text, { keys }).node)
}

/** A query whose text cannot run: InvalidInput saying what and where (the app underlines it first). */
export function invalidText(text: string, e: QueryError): CallsightError {
  return new CallsightError(
    'InvalidInput',
    `The search text is not valid: ${describeQueryError(e)} (at ${e.span.start + 1}: "${text.slice(e.span.start, e.span.end)}").`,
    {
      fields: [{ members: ['text'], message: describeQueryError(e) }]
    }
  )
}

/** The text's tree ANDed with the analysis filters of the filter bar ("matched in"; the team cache's SQL too). */
export function withFilters(node: ResolvedNode | null, filters: SearchQuery['analysis']): ResolvedNode | null {
  const span = { start: 0, end: 0 }
  const extra: ResolvedNode[] = filters.map((f) =>
    f.kind === 'equals'
      ? { kind: 'equals', key: f.key, value: f.value, folded: foldText(f.value), span }
      : {
          kind: 'range',
          key: f.key,
          min: f.min === null ? null : { value: f.min, strict: false },
          max: f.max === null ? null : { value: f.max, strict: false },
          span
        }
  )
  const items = [...(node ? [node] : []), ...extra]
  return items.length === 0 ? null : items.length === 1 ? items[0]! : { kind: 'and', items, span }
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
  for (const scopeIds of scopesFor(query, catalog.scopes, catalog.typeNames)) {
    if (scopeIds.length === 0) empty = true
    else where.push(`EXISTS (SELECT 1 FROM scope_members m WHERE m.call = c.id AND m.scope IN (${ids(scopeIds)}))`)
  }

  // A prefix the catalog could not expand (too many terms) stays a prefix, and a row-by-row
  // probe of it is costly; one it has no entry for stays a prefix too.
  const expand: PrefixExpander = (prefix) => catalog.expansions.get(prefix)
  const analyzed = analyzeQuery(query.text, { keys: catalog.keys })
  if (analyzed.errors.length > 0) throw invalidText(query.text, analyzed.errors[0]!)
  const text = compileText(analyzed.node, { expand, keyIds: catalog.keyIds, shortPrefixIndex: catalog.shortPrefixIndex === true })
  where.push(...text.where)
  params.push(...text.params)
  if (analyzed.callId !== undefined) {
    const spellings = callIdSpellings(analyzed.callId)
    where.push(`c.call_id IN (${spellings.map(() => '?').join(', ')})`)
    params.push(...spellings)
  }
  const matchParts: string[] = text.match ? [text.match] : []
  const costlyProbe = text.costlyProbe

  for (const f of query.analysis) {
    const keys = catalog.keyIds.get(f.key)
    if (!keys) {
      empty = true
      continue
    }
    if (f.kind === 'equals') {
      // Case- and diacritic-insensitive, like text; the value's words must be in the call's
      // analysis text, which lets the index find rare values.
      const p = analysisExists(keys, FOLDED_EQUALS, [foldText(f.value)])
      where.push(p.sql)
      params.push(...p.params)
      const tokens = tokensOf(f.value)
      if (tokens.length > 0) matchParts.push(phraseFts(tokens, false, 'analysis', expand).fts)
    } else {
      const conds = ['a.value_num IS NOT NULL']
      const rangeParams: unknown[] = []
      if (f.min !== null) {
        conds.push('a.value_num >= ?')
        rangeParams.push(f.min)
      }
      if (f.max !== null) {
        conds.push('a.value_num <= ?')
        rangeParams.push(f.max)
      }
      const p = analysisExists(keys, conds.join(' AND '), rangeParams)
      where.push(p.sql)
      params.push(...p.params)
    }
  }
  for (const f of query.fields ?? []) {
    const p = fieldCondition(f)
    where.push(p.sql)
    params.push(...p.params)
  }
  const review = compileReview(query.review)
  if (review) {
    where.push(...review.where)
    params.push(...review.params)
  }
  // Each part parenthesised when there are several: a part may hold its own OR or NOT.
  const joined = (parts: readonly string[]): string | null =>
    parts.length > 1 ? parts.map((m) => `(${m})`).join(' AND ') : (parts[0] ?? null)
  const match = joined(matchParts)
  const order: ResultOrder = query.sort === 'relevance' ? (text.ranked ? 'relevance' : 'date_desc') : query.sort
  const dateConds = (query.from !== null ? 1 : 0) + (query.to !== null ? 1 : 0)
  return {
    where,
    params,
    match,
    shortMatch: match !== null && catalog.shortPrefixIndex === true ? shortPrefixToken(match) : null,
    split:
      text.split === null
        ? null
        : {
            long: joined([text.split.long, ...matchParts.slice(1)])!,
            short: text.split.short
          },
    order,
    costlyProbe,
    empty,
    from: query.from,
    to: query.to,
    dateOnly: !empty && matchParts.length === 0 && where.length === dateConds,
    candidates: review?.candidates ?? null,
    reviewDriver: empty ? null : (review?.driver ?? null),
    reviewSelective: !empty && review?.selective === true,
    key: JSON.stringify(review ? [where, params, match, order, catalog.reviewVersion ?? 0] : [where, params, match, order]),
    node: withFilters(analyzed.node, query.analysis)
  }
}

/**
 * An extra field's condition: its value as text exactly (numbers compared as the text the
 * breakdown shows them as), or its number within [min, max]. The field name is checked by
 * FieldFilter's pattern and quoted in the JSON path, as the results list reads it.
 */
function fieldCondition(f: FieldFilter): { sql: string; params: unknown[] } {
  const path = `$."${f.field}"`
  if (f.kind === 'equals') {
    return f.folded
      ? { sql: 'fold_text(CAST(json_extract(c.extra, ?) AS TEXT)) = ?', params: [path, foldText(f.value)] }
      : { sql: 'CAST(json_extract(c.extra, ?) AS TEXT) = ?', params: [path, f.value] }
  }
  // A service may send a number as JSON text ("125"); the results list sorts those as numbers too.
  const conds = ["json_extract(c.extra, ?) <> ''"]
  const params: unknown[] = [path]
  if (f.min !== null) {
    conds.push('CAST(json_extract(c.extra, ?) AS REAL) >= ?')
    params.push(path, f.min)
  }
  if (f.max !== null) {
    conds.push('CAST(json_extract(c.extra, ?) AS REAL) <= ?')
    params.push(path, f.max)
  }
  return { sql: `(${conds.join(' AND ')})`, params }
}
