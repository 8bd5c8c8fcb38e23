import { CallsightError } from '../errors'
import type { RemotePage, SearchQuery } from '../../shared/domain'
import type { Session } from '../session/session'

/** The service's page-size bounds (spec, rule 2) and its paging window (rule 1). */
export const TAKE_BOUND_PLAIN = 500
export const TAKE_BOUND_WITH_ANALYSIS = 100
export const PAGING_WINDOW = 10_000

export function takeBound(includeAnalysis: boolean): number {
  return includeAnalysis ? TAKE_BOUND_WITH_ANALYSIS : TAKE_BOUND_PLAIN
}

/**
 * One page of the "search the service" mode: the user's filters sent as they are, take
 * clamped to its bound. Free text and analysis filters are local-only and not sent.
 *
 * Near the 10,000 window the service shortens a page without saying so; a short page there
 * is marked loweredByCap and exhausted (no further page can be had), so the UI can say the
 * window ended rather than that the results did.
 */
export async function remoteSearch(
  session: Session,
  query: SearchQuery,
  skip: number,
  take: number,
  includeAnalysis: boolean,
  signal?: AbortSignal
): Promise<RemotePage> {
  if (query.from === null || query.to === null) {
    throw new CallsightError('InvalidInput', 'Choose a start and end date to search the service.')
  }
  if (!Number.isInteger(skip) || skip < 0) throw new CallsightError('InvalidInput', 'The page position must be zero or more.')
  const clamped = Math.max(1, Math.min(Math.floor(take), takeBound(includeAnalysis)))
  const room = PAGING_WINDOW - skip
  if (room <= 0) {
    return { skip, take: clamped, records: [], totalCount: null, loweredByCap: false, exhausted: true, malformed: 0 }
  }
  const page = await session.getCalls(
    {
      from: query.from,
      to: query.to,
      skip,
      take: clamped,
      ascending: query.sort === 'date_asc',
      callTypes: query.callTypes,
      direction: query.direction,
      results: query.results,
      hasNewRequest: query.hasNewRequest,
      includeAnalysis
    },
    signal
  )
  const short = page.returned < clamped
  // Short because the window ran out: exactly the room that was left, and less than asked.
  const atTotal = page.totalCount !== null && skip + page.returned >= page.totalCount
  const loweredByCap = short && clamped > room && page.returned >= room && !atTotal
  const endOfResults = !loweredByCap && (short || atTotal)
  return {
    skip,
    take: clamped,
    records: page.records,
    totalCount: page.totalCount,
    loweredByCap,
    exhausted: loweredByCap || endOfResults || skip + page.returned >= PAGING_WINDOW,
    malformed: page.malformed.length
  }
}
