import { CallsightError } from '../errors'
import type { RemotePage, SearchQuery } from '../../shared/domain'
import { maxTake, SERVICE_WINDOW } from '../../shared/service-limits'
import type { Session } from '../session/session'

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
  const clamped = Math.max(1, Math.min(Math.floor(take), maxTake(includeAnalysis)))
  const room = SERVICE_WINDOW - skip
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
    exhausted: loweredByCap || endOfResults || skip + page.returned >= SERVICE_WINDOW,
    malformed: page.malformed.length
  }
}
