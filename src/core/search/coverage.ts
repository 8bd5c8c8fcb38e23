import type { CoverageGap, CoverageNotice, QueryCoverage, ResultsFilter, SearchQuery } from '../../shared/domain'
import type { ResolvedNode } from '../../shared/query/ast'
import { analyzeQuery, type KeyRef } from '../../shared/query/resolve'
import {
  intersectIntervals,
  unionIntervals,
  uncovered,
  type CallTypeNames,
  type HeldWindow,
  type Interval,
  type ScopeFilters,
  type ScopeRef
} from '../cache'

/**
 * Which synced scopes answer a local query, and over what part of its range.
 *
 * A query is split into cells: one value per filter (each call type of the filter, each
 * result of a list; a filter not given is "any"). A call of a cell is found locally when,
 * for each filter the query has, some scope that returned it attests that filter (the rule
 * `scopesFor` applies). That is certain on the instants where, for each filter, a scope
 * that both attests it and holds every call of the cell (no narrower on any filter) has
 * covered the instant: the cell's coverage is the intersection over its filters of the
 * union of those scopes' coverage. So a type scope and a direction scope answer "type and
 * direction" exactly on their common coverage. With no filter at all, only scopes with no
 * filter hold every call. What is left of the range, per cell, is missing.
 *
 * A query that reads analysis items (an analysis filter, or a term on an analysis key) is
 * one more filter: a scope attests it when it was synced with analysis, since a scope
 * without it stored no items to match and would answer such a query with a silent zero.
 */

const ANY = null
type Cell = {
  type: string | null
  direction: number | null
  result: 'answered' | number | null
  fresh: boolean | null
}

interface ResolvedScope {
  types: readonly string[]
  filters: ScopeFilters
  coverage: ReadonlyArray<Interval>
}

/** The scope holds every call of the cell: it is no narrower on any filter. */
function holds(s: ResolvedScope, c: Cell): boolean {
  const f = s.filters
  if (s.types.length > 0 && (c.type === ANY || !s.types.includes(c.type))) return false
  if (f.direction !== null && f.direction !== c.direction) return false
  if (f.results !== 'all') {
    if (c.result === ANY) return false
    if (c.result === 'answered' ? f.results !== 'answered' : !Array.isArray(f.results) || !f.results.includes(c.result)) return false
  }
  if (f.hasNewRequest !== null && f.hasNewRequest !== c.fresh) return false
  return true
}

type Attest = (s: ResolvedScope) => boolean

/** One test per filter the query has: the scope vouches for it (as in `scopesFor`). */
function attesters(query: SearchQuery, types: readonly string[], analysis: boolean): Attest[] {
  const out: Attest[] = []
  if (analysis) out.push((s) => s.filters.includeAnalysis)
  if (types.length > 0) out.push((s) => s.types.length > 0 && s.types.every((t) => types.includes(t)))
  if (query.direction !== null) out.push((s) => s.filters.direction === query.direction)
  const results = query.results
  if (results === 'answered') out.push((s) => s.filters.results === 'answered')
  if (Array.isArray(results)) out.push((s) => Array.isArray(s.filters.results) && s.filters.results.every((r) => results.includes(r)))
  if (query.hasNewRequest !== null) out.push((s) => s.filters.hasNewRequest === query.hasNewRequest)
  return out
}

function cellsOf(query: SearchQuery, types: readonly string[]): Cell[] {
  const typeValues: Array<string | null> = types.length > 0 ? [...types] : [ANY]
  const resultValues: Array<'answered' | number | null> =
    query.results === 'all' ? [ANY] : query.results === 'answered' ? ['answered'] : [...new Set(query.results)]
  return typeValues.flatMap((type) =>
    resultValues.map((result) => ({ type, direction: query.direction, result, fresh: query.hasNewRequest }))
  )
}

const resultsOf = (r: Cell['result']): ResultsFilter => (r === ANY ? 'all' : r === 'answered' ? 'answered' : [r])

/** Gaps with equal filters but the type, and equal range, become one gap naming the types. */
function grouped(gaps: ReadonlyArray<{ cell: Cell; from: number | null; to: number | null }>, analysis: boolean): CoverageGap[] {
  const out = new Map<string, CoverageGap>()
  for (const { cell, from, to } of gaps) {
    const results = resultsOf(cell.result)
    const key = JSON.stringify([cell.direction, results, cell.fresh, from, to])
    const gap = out.get(key) ?? { callTypes: [], direction: cell.direction, results, hasNewRequest: cell.fresh, analysis, from, to }
    if (cell.type !== ANY && !gap.callTypes.includes(cell.type)) gap.callTypes.push(cell.type)
    out.set(key, gap)
  }
  return [...out.values()]
}

/** Whether a term names an analysis key, under a NOT too (its answer depends on the items as much). */
function namesKey(node: ResolvedNode | null): boolean {
  if (!node) return false
  switch (node.kind) {
    case 'text':
      return false
    case 'equals':
    case 'range':
      return true
    case 'and':
    case 'or':
      return node.items.some(namesKey)
    case 'not':
      return namesKey(node.item)
  }
}

/**
 * Whether the query reads analysis items. Free text is not counted: it searches title and
 * summary as well, which every scope stores, and the service has no text search to compare.
 */
export function readsAnalysis(query: SearchQuery, keys: readonly KeyRef[]): boolean {
  if (query.analysis.length > 0) return true
  return query.text.trim() !== '' && namesKey(analyzeQuery(query.text, { keys }).node)
}

/**
 * A scope's coverage as far as this computer holds it: a team cache's scopes cover what the
 * worker synced, but a window holds only the calls dated from its start on.
 */
function heldPart(coverage: ReadonlyArray<Interval>, window: HeldWindow | null): ReadonlyArray<Interval> {
  if (window === null || window.start === null) return coverage
  return intersectIntervals(coverage, [[window.start, Number.MAX_SAFE_INTEGER]])
}

/**
 * The notice for a query reaching before the window's start (an open start reaches back to
 * the first call), or, in a window of chosen scopes, one they do not answer whole: the
 * scopes not chosen are not on this computer, so the gap is the window's.
 */
function windowNotices(query: SearchQuery, window: HeldWindow | null, complete: boolean): CoverageNotice[] {
  if (window === null) return []
  const before = window.start !== null && (query.from === null || query.from < window.start)
  const unscoped = window.scopes !== null && !complete
  if (!before && !unscoped) return []
  return [
    {
      kind: 'outside-window',
      windowStart: window.start,
      days: window.days,
      ...(window.scopes === null ? {} : { scopes: window.scopes })
    }
  ]
}

/**
 * Pure. Throws UnknownCallType for a type name the catalog does not know, as search does.
 * `keys` are the cache's analysis keys, to tell a term on a key from free text. `window`:
 * the team cache's window the cache holds, when it holds one.
 */
export function queryCoverage(
  query: SearchQuery,
  scopes: readonly ScopeRef[],
  names: CallTypeNames,
  keys: readonly KeyRef[] = [],
  window: HeldWindow | null = null
): QueryCoverage {
  const types = names.resolve(query.callTypes)
  const analysis = readsAnalysis(query, keys)
  const resolved: ResolvedScope[] = scopes.map((s) => ({
    types: s.filters.callTypes.map((n) => names.scopeValue(n)),
    filters: s.filters,
    coverage: heldPart(s.coverage ?? [], window)
  }))
  // An open start is measured from the first covered instant ("everything the cache has").
  // The end stops at the cache's horizon, the newest instant any scope covers: past it the
  // cache claims nothing either way (the status bar says when it last synced), so a range
  // that runs to today, or on into the day, is judged up to the last sync.
  const all = unionIntervals(resolved.map((s) => s.coverage))
  const horizon = all[all.length - 1]?.[1] ?? null
  const from = query.from ?? all[0]?.[0] ?? null
  const to = horizon === null ? query.to : query.to === null ? horizon : Math.max(from ?? query.to, Math.min(query.to, horizon))
  // A range that runs past the horizon asks for "up to now". Each filter is then judged up
  // to the newest moment a scope attesting it covers: two syncs that ended seconds apart
  // would otherwise leave a gap between their ends that no sync can fill (the next one ends
  // later again). The answer is then complete as of that moment, which the result says.
  const openEnd = horizon !== null && (query.to === null || query.to > horizon)
  const tests = attesters(query, types, analysis)
  const gaps: Array<{ cell: Cell; from: number | null; to: number | null }> = []
  let asOf: number | null = null
  for (const cell of cellsOf(query, types)) {
    const holding = resolved.filter((s) => holds(s, cell))
    const perFilter =
      tests.length === 0
        ? [unionIntervals(holding.map((s) => s.coverage))]
        : tests.map((test) => unionIntervals(holding.filter(test).map((s) => s.coverage)))
    const covered = perFilter.reduce((acc, list) => intersectIntervals(acc, list))
    if (from === null || to === null) {
      gaps.push({ cell, from: query.from, to: query.to })
      continue
    }
    let end = to
    if (openEnd) {
      const newest = Math.min(...perFilter.map((list) => list[list.length - 1]?.[1] ?? -Infinity))
      // A filter never covered after the start of the range is simply missing there.
      if (newest > from && newest < end) end = newest
      asOf = Math.min(asOf ?? end, end)
    }
    for (const [a, b] of uncovered([from, end], covered)) gaps.push({ cell, from: a, to: b })
  }
  const missing = grouped(gaps, analysis).slice(0, 200)
  const notices = windowNotices(query, window, missing.length === 0)
  return {
    complete: missing.length === 0,
    from,
    to: asOf ?? to,
    missing,
    ...(asOf === null ? {} : { asOf }),
    ...(notices.length === 0 ? {} : { notices })
  }
}
