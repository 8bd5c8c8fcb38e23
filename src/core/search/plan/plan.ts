import { ANCHOR_STEP } from '../paging/anchors'
import type { CompiledQuery } from '../query/compile'

/**
 * How one question about a query is answered. Every choice is made in choosePlan; the
 * executors (pager.ts, date-page.ts, count.ts) only switch on the kind.
 *  - nothing: some filter can match nothing.
 *  - scan: no text; walk the date index (calls_by_date) in sort order, filters per row.
 *  - walk: common text, date order; walk the date index and ask FTS5 about each row (a
 *    rowid-bounded doclist seek). The first page stops after `limit` hits.
 *  - fts: rare text, date order; take the matches from FTS5 (or by id, when the bounded
 *    count listed them: `ids`), then sort them. Also review filters without text whose
 *    candidates (from the review tables) were few enough to list.
 *  - review: review filters with an index of annotated calls in date order (a tag's, a
 *    status's, all annotated calls'): walk it, join each row to its call, apply the other
 *    filters (and probe FTS5 for common text, as walk does); the first page stops after
 *    `limit` hits. Without text always (it reads a subset of what scan reads, in the same
 *    order); with text when the text is common (instead of walk).
 *  - relevance: matches from FTS5 ordered by bm25 (FTS5's rank), ties by rowid.
 *  - bitmap: the walk's order served from memory: the query's match bitmap tested along the
 *    ids in date order, for long jumps and prefixes too wide to probe row by row.
 *  - counted: (count) the bounded count listed every match, and no other filter applies.
 *  - match-list: (count) the length of the query's match list, which a common word's facets
 *    and deep pages need anyway.
 */
export type Plan =
  | { kind: 'nothing' }
  | { kind: 'scan' }
  | { kind: 'walk' }
  | { kind: 'fts'; ids: string | null }
  | { kind: 'review' }
  | { kind: 'relevance' }
  | { kind: 'bitmap' }
  | { kind: 'counted'; n: number }
  | { kind: 'match-list' }

export type PlanKind = Plan['kind']
type Of<K extends PlanKind> = Extract<Plan, { kind: K }>
export type PagePlan = Of<'nothing' | 'scan' | 'walk' | 'fts' | 'review' | 'relevance' | 'bitmap'>
export type CountPlan = Of<'nothing' | 'scan' | 'fts' | 'review' | 'counted' | 'match-list'>
export type ExportPlan = Of<'nothing' | 'scan' | 'fts' | 'review' | 'relevance'>
/** A plan that reads rows through one SELECT (sql.ts builds it). */
export type SelectPlan = Of<'scan' | 'walk' | 'fts' | 'review' | 'relevance'>

/** What the plan is for. A page also says how far it is from the nearest known position. */
export type Purpose =
  { for: 'page'; limit: number; gap: number; bitmapRead: boolean; longJump: number } | { for: 'count' } | { for: 'export' }

/** Matches of a MATCH expression counted up to a cap; `ids` (a JSON array) when all were counted. */
export interface Estimate {
  n: number
  ids: string | null
}

/**
 * The rule. Walking costs about limit × N / m probes (N calls, m matches), each ~3× the
 * cost of taking one match from FTS5 and sorting it; FTS-first costs about m. So walk when
 * m² > 3 × limit × N, i.e. m > walkThreshold. With N = 1,000,000 and a page of 100 that is
 * m > ~17,000 (1.7%). m is counted, not guessed: the matches of the whole expression are
 * counted up to the threshold and no further, so the check costs at most the threshold's
 * worth of doclist reading and accounts for words that occur together.
 */
export const WALK_FACTOR = 3
/** The page size estimates are counted for (the app's page). */
export const PLANNED_PAGE = 100
/** A walk-plan page this far from a known position is served from the match bitmap. */
export const LONG_JUMP = 20 * ANCHOR_STEP

export function walkThreshold(total: number, limit: number): number {
  return Math.ceil(Math.sqrt(WALK_FACTOR * Math.max(1, limit) * Math.max(1, total)))
}

/** How far to count a query's matches: just past the walk threshold, all a plan needs to know. */
export function estimateCap(total: number): number {
  return walkThreshold(total, PLANNED_PAGE) + 1
}

/**
 * How far to count review candidates. A scan's per-row check of a review filter is one
 * primary-key probe of a narrow table, much cheaper than FTS5's doclist seek, while taking a
 * candidate means reading its calls row by id and sorting it: the same rule with a factor of
 * 0.4 instead of 3 (measured in `npm run bench -- --only review`), about 6,300 at 1,000,000 calls.
 */
export const CANDIDATE_FACTOR = 0.4
export function candidateCap(total: number): number {
  return Math.ceil(Math.sqrt(CANDIDATE_FACTOR * PLANNED_PAGE * Math.max(1, total))) + 1
}

/**
 * How far to count the candidates of a selective review filter (review-filter.ts) that has a
 * driver to walk. Fewer are read by id and sorted: at most this many reads of a call's row.
 * More: the walk of the driver, testing each row's annotation before its call is read,
 * finds a page of 100 within about 100 × driver rows / REVIEW_FEW rows (5,000 of 100,000
 * annotations), and the count stopped after REVIEW_FEW index steps.
 */
export const REVIEW_FEW = 2000

/** Whether a query needs its matches counted before a plan can be chosen. */
export function needsEstimate(q: CompiledQuery): boolean {
  return q.match === null ? q.candidates !== null && (q.reviewDriver === null || q.reviewSelective) : q.order !== 'relevance'
}

/** How far a query without text counts its review candidates (`few`: REVIEW_FEW, tests move it). */
export function reviewCap(q: CompiledQuery, total: number, few = REVIEW_FEW): number {
  return q.reviewDriver !== null ? few + 1 : candidateCap(total)
}

const NOTHING: Of<'nothing'> = { kind: 'nothing' }
const SCAN: Of<'scan'> = { kind: 'scan' }
const RELEVANCE: Of<'relevance'> = { kind: 'relevance' }
const REVIEW: Of<'review'> = { kind: 'review' }

export function choosePlan(q: CompiledQuery, estimate: Estimate, total: number, purpose: Extract<Purpose, { for: 'page' }>): PagePlan
export function choosePlan(q: CompiledQuery, estimate: Estimate, total: number, purpose: Extract<Purpose, { for: 'count' }>): CountPlan
export function choosePlan(q: CompiledQuery, estimate: Estimate, total: number, purpose: Extract<Purpose, { for: 'export' }>): ExportPlan
/**
 * `estimate`: the query's matches counted up to estimateCap (any value when !needsEstimate);
 * `total`: the number of calls.
 */
export function choosePlan(q: CompiledQuery, estimate: Estimate, total: number, purpose: Purpose): Plan {
  if (q.empty) return NOTHING
  if (q.match === null) {
    // Review filters with an index in date order: a walk of it reads fewer rows than the
    // scan, in the same order, and stops after the page; unless the candidates were counted
    // and are few (a selective filter): then they are read by id and sorted.
    if (q.reviewDriver !== null) return q.reviewSelective && estimate.ids !== null ? { kind: 'fts', ids: estimate.ids } : REVIEW
    // Review filters without text: their candidates, when few enough to be listed, are read
    // by id and sorted (the rule above, with the candidates as the matches); else the scan.
    if (q.candidates !== null && estimate.ids !== null) return { kind: 'fts', ids: estimate.ids }
    return SCAN
  }
  switch (purpose.for) {
    case 'export':
      // Export reads every match anyway: take them from FTS5 and sort, never probe per row.
      return q.order === 'relevance' ? RELEVANCE : { kind: 'fts', ids: null }
    case 'count':
      if (estimate.ids !== null && q.where.length === 0) return { kind: 'counted', n: estimate.n }
      // A common word: its match list costs ~3× the bare count, and it is what its facets and
      // deep pages need, so the count reads it and they use it as it is.
      if (estimate.n > walkThreshold(total, PLANNED_PAGE)) return { kind: 'match-list' }
      return { kind: 'fts', ids: null }
    case 'page': {
      if (q.order === 'relevance') return RELEVANCE
      if (!(estimate.n > walkThreshold(total, purpose.limit))) return { kind: 'fts', ids: estimate.ids }
      // From the match bitmap: a long jump (building the bitmap), any jump past an anchor step
      // once the bitmap exists (the count may have built it), and every page of a prefix too
      // wide to probe row by row. Reading on stays with the date-index walk: it needs no
      // in-memory date order, which a write drops.
      const { gap, longJump, bitmapRead } = purpose
      if (q.costlyProbe || gap >= longJump || (bitmapRead && gap >= ANCHOR_STEP)) return { kind: 'bitmap' }
      // Common text and a review index: walk the annotated calls instead of all of them.
      return q.reviewDriver !== null ? REVIEW : { kind: 'walk' }
    }
  }
}
