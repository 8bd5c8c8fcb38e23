import type { SearchPage } from '../../../shared/domain'
import type { SearchReader, SqlPiece } from '../../cache'
import type { CompiledQuery } from '../query/compile'
import { matchedAmong } from '../query/sql'

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

/** What a review walk reads, besides the SQL reader. */
export interface ReviewWalkInput {
  reader: SearchReader
  q: CompiledQuery
  offset: number
  limit: number
  /** The candidates in date order, `max` at a time: the review filter's calls, or the text's listed matches that pass it. */
  next: (max: number) => number[]
  /** REVIEW_PROBE_MAX (tests move it). */
  probeMax?: number | undefined
  /**
   * The SQL that keeps the candidates passing the query (default: its whole WHERE, the text
   * through FTS5's probe); candidates known to match the text are asked the rest only.
   */
  among?: (q: CompiledQuery, idsJson: string) => SqlPiece
}

/**
 * A first page (date order) of a query with a review filter, from candidates in date order
 * in memory (page-plan.ts chooses this: the smaller side driving): the review filter's calls
 * (the annotated calls kept sorted, a list's calls, or every call for "new" and the like),
 * or a listed word's matches that pass it (a rare word with "status new"). SQL is asked
 * about the rest of the query (scope, date range, analysis, the word through FTS5's rowid
 * probe) a batch at a time, until the page is full. Null when REVIEW_PROBE_MAX candidates
 * did not fill it (a filter whose calls the rest mostly fails): the match list serves it.
 * Exact: the SQL asked is the query's own WHERE (review conditions included) on each candidate.
 */
export function reviewWalkPage(input: ReviewWalkInput): SearchPage | null {
  const { reader, q, offset, limit, next } = input
  const want = offset + limit
  // As if every candidate passed, doubling while they do not: a word's probe per candidate is
  // what costs, so a rarer rest pays a few more statements rather than probes it did not need.
  let batchSize = Math.min(BATCH_MAX, Math.max(FIRST_BATCH_MIN, Math.ceil(want * 1.25)))
  const found: number[] = []
  let probed = 0
  while (found.length < want) {
    if (probed >= (input.probeMax ?? REVIEW_PROBE_MAX)) return null
    const batch = next(batchSize)
    if (batch.length === 0) break
    probed += batch.length
    const hits = reader.matches.idList((input.among ?? matchedAmong)(q, JSON.stringify(batch)))
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
