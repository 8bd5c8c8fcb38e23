import type { SearchPage } from '../../shared/domain'
import type { SearchReader } from '../cache'
import type { CompiledQuery } from './compile'
import type { ReviewMatch } from './review-set'
import { matchedAmong } from './sql'

/** Candidates asked about per page before the whole match list is read instead (a filter few calls pass). */
export const REVIEW_PROBE_MAX = 10_000
/** Pages from this far on come from the match list (keyset-free walks would repeat the skipped part). */
export const REVIEW_WALK_MAX = 2_000
/**
 * A listed word's matches that pass the review filter, above which they are put in date order
 * in memory and asked about a batch at a time, rather than all read by id and sorted in SQL
 * (a rare word with a common filter, "status new": most of its matches pass).
 */
export const LISTED_SORT_MAX = 1_000
const FIRST_BATCH_MIN = 64
const BATCH_MAX = 4_000

/** What a review page reads, besides the SQL reader. */
export interface ReviewPageInput {
  reader: SearchReader
  q: CompiledQuery
  /** The review filter against the annotations in memory (review-set.ts). */
  review: ReviewMatch
  /** The text's matches when the bounded count listed them all (a JSON array), else null. */
  textIds: string | null
  offset: number
  limit: number
  /** REVIEW_PROBE_MAX (tests move it). */
  probeMax?: number | undefined
  /** LISTED_SORT_MAX (tests move it). */
  listedSortMax?: number | undefined
  /** The page through the SQL plan that reads the given ids and sorts them (plan `fts` with ids). */
  listed: (idsJson: string) => SearchPage
  /** The page from the query's whole match list (plan `bitmap`). */
  fromMatchList: () => SearchPage
}

/**
 * A first page (date order) of a query with a review filter, the smaller side driving:
 *  - text whose matches the bounded count listed (a rarer word): those ids tested against
 *    the review filter in memory; few survivors are read by id and sorted in SQL, more
 *    (LISTED_SORT_MAX: a rare word with "status new") are put in date order in memory and
 *    asked about a batch at a time, as below;
 *  - else (no text, or a common word): the review filter's calls in date order from memory
 *    (the annotated calls kept sorted, a list's calls, or every call for "new" and the
 *    like), asking SQL about the rest of the query (scope, date
 *    range, analysis, the word through FTS5's rowid probe) a batch at a time, until the page
 *    is full. A filter whose calls the rest mostly fails (REVIEW_PROBE_MAX candidates
 *    without a page), and deep pages, read the whole match list instead.
 * Exact: the SQL asked is the query's own WHERE (review conditions included) on each candidate.
 */
export function reviewDatePage(input: ReviewPageInput): SearchPage {
  const { reader, q, review, offset, limit } = input
  const desc = q.order !== 'date_asc'
  let next: (max: number) => number[]
  if (input.textIds !== null) {
    const ids = (JSON.parse(input.textIds) as number[]).filter((id) => review.has(id))
    if (ids.length <= (input.listedSortMax ?? LISTED_SORT_MAX) || offset + limit > REVIEW_WALK_MAX) return input.listed(JSON.stringify(ids))
    const byDate = review.inDateOrder(ids, desc)
    let k = 0
    next = (max) => byDate.slice(k, (k += max))
  } else {
    if (offset + limit > REVIEW_WALK_MAX) return input.fromMatchList()
    next = review.walk(desc)
  }
  const want = offset + limit
  // As if every candidate passed, doubling while they do not: a word's probe per candidate is
  // what costs, so a rarer rest pays a few more statements rather than probes it did not need.
  let batchSize = Math.min(BATCH_MAX, Math.max(FIRST_BATCH_MIN, Math.ceil(want * 1.25)))
  const found: number[] = []
  let probed = 0
  while (found.length < want) {
    if (probed >= (input.probeMax ?? REVIEW_PROBE_MAX)) return input.fromMatchList()
    const batch = next(batchSize)
    if (batch.length === 0) break
    probed += batch.length
    const hits = reader.matches.idList(matchedAmong(q, JSON.stringify(batch)))
    const hit = new Set(hits)
    for (const id of batch) {
      if (!hit.has(id)) continue
      found.push(id)
      if (found.length === want) break
    }
    batchSize = Math.min(BATCH_MAX, batchSize * 2)
  }
  const ids = found.slice(offset)
  return { offset, rows: ids.length === 0 ? [] : reader.rows.byIds(ids) }
}
