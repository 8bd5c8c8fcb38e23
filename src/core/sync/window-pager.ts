import type { CallRecord } from '../../shared/domain'
import { CallsightError } from '../errors'
import { SERVICE_WINDOW } from '../../shared/service-limits'
import type { DenseFinding, PagerState } from './checkpoint'

const SECOND = 1000
export const secondOf = (ms: number): number => Math.floor(ms / SECOND) * SECOND

/**
 * The state of a pass that has fetched nothing yet. Oldest first it pages up from `rangeFrom`;
 * newest first (given `rangeTo`) it pages down from the end, the same way mirrored.
 */
export function initialPager(rangeFrom: number, newest?: { rangeTo: number }): PagerState {
  return {
    ...(newest ? { order: 'newest' as const, windowEnd: Math.ceil(newest.rangeTo / SECOND) * SECOND } : {}),
    // Start times are whole seconds on the wire; a fraction would widen the range backwards.
    windowStart: Math.ceil(rangeFrom / SECOND) * SECOND,
    skip: 0,
    boundaryAt: null,
    boundaryIds: [],
    boundaryLast: null,
    expectFirst: null,
    windowsDone: 0,
    dense: [],
    done: false
  }
}

export const isNewestFirst = (state: Pick<PagerState, 'order'>): boolean => state.order === 'newest'

/**
 * The page to ask for next. take never lets skip + take pass the window limit. `to` is the
 * window's end newest first; oldest first every window ends at the range's end.
 */
export function nextSlice(state: PagerState, maxTake: number): { from: number; to?: number; skip: number; take: number } {
  const take = Math.min(maxTake, SERVICE_WINDOW - state.skip)
  if (isNewestFirst(state)) return { from: state.windowStart, to: state.windowEnd, skip: state.skip, take }
  return { from: state.windowStart, skip: state.skip, take }
}

export interface PageOutcome {
  next: PagerState
  /** Records not stored before: the page minus the boundary second's known ids. */
  fresh: CallRecord[]
  /** The skip could not be proven after a window move; the window is re-read from skip 0. */
  reread: boolean
  /** Set when this page showed a second too dense to page past. */
  dense: DenseFinding | null
}

/**
 * Folds one page into the pager state. Pure: the engine stores `fresh` and `next` together.
 *
 * The service orders by start time, ties by callId, and refuses skip + take > 10,000. When
 * a window fills, the next one starts at the last second received; the calls of that second
 * already stored are skipped by count, less one, so the first record of the new window must
 * be the last one stored. If it is not, calls appeared or vanished in that second meanwhile
 * and the window is read again from skip 0, de-duplicated by the ids of that second.
 *
 * Newest first is the mirror image: descending by start time, each window ends (inclusive)
 * at the last second received, and the ties of that second come in the same order in the
 * next window as in the last, so the same skip and proof hold.
 */
export function applyPage(
  state: PagerState,
  slice: { skip: number; take: number },
  page: { records: readonly CallRecord[]; returned: number; totalCount: number | null },
  rangeTo: number
): PageOutcome {
  if (state.expectFirst !== null && page.records[0]?.callId !== state.expectFirst) {
    return { next: { ...state, skip: 0, expectFirst: null }, fresh: [], reread: true, dense: null }
  }

  const newest = isNewestFirst(state)
  // Past the boundary second in the order of the pass: later oldest first, earlier newest first.
  const beyond = (sec: number, at: number): boolean => (newest ? sec < at : sec > at)
  const known = new Set(state.boundaryIds)
  const fresh: CallRecord[] = []
  let boundaryAt = state.boundaryAt
  let ids = state.boundaryIds
  let idSet = known
  let boundaryLast = state.boundaryLast
  for (const r of page.records) {
    const sec = secondOf(r.callAt)
    if (boundaryAt === null || beyond(sec, boundaryAt)) {
      boundaryAt = sec
      ids = []
      idSet = new Set()
    }
    const alreadyStored = sec === state.boundaryAt && known.has(r.callId)
    if (sec === boundaryAt && !idSet.has(r.callId)) {
      if (ids === state.boundaryIds) ids = [...ids]
      ids.push(r.callId)
      idSet.add(r.callId)
      boundaryLast = r.callId
    } else if (sec === boundaryAt) {
      boundaryLast = r.callId
    }
    if (!alreadyStored) fresh.push(r)
  }
  const unique = dedupe(fresh)

  const position = slice.skip + page.returned
  const shortPage = page.returned < slice.take
  // A short page is the end, unless the envelope says there is more inside this window:
  // then something shortened it and it must not be mistaken for the end.
  const moreInWindow = page.totalCount !== null && page.returned > 0 && position < Math.min(page.totalCount, SERVICE_WINDOW)
  const base: PagerState = { ...state, boundaryAt, boundaryIds: ids, boundaryLast, expectFirst: null }

  if ((shortPage && !moreInWindow) || (page.returned === 0 && position < SERVICE_WINDOW)) {
    return { next: { ...base, skip: position, done: true }, fresh: unique, reread: false, dense: null }
  }
  if (position < SERVICE_WINDOW) {
    return { next: { ...base, skip: position }, fresh: unique, reread: false, dense: null }
  }

  // The window is full: move it.
  if (boundaryAt === null) {
    throw new CallsightError('MalformedResponse', 'The service returned a full page without a single usable call; the sync cannot go on.')
  }
  return moveWindow(state, base, { at: boundaryAt, count: ids.length, last: boundaryLast }, page.totalCount, rangeTo, unique)
}

/**
 * A full window: the next one starts (oldest first) or ends (newest first) at the last second
 * received. When that is the window's own edge, one second holds the whole window: it is
 * reported, and the next window starts a second later (ends a second earlier).
 */
function moveWindow(
  state: PagerState,
  base: PagerState,
  boundary: { at: number; count: number; last: string | null },
  windowTotal: number | null,
  rangeTo: number,
  fresh: CallRecord[]
): PageOutcome {
  const newest = isNewestFirst(state)
  const edge = newest ? (state.windowEnd ?? boundary.at) : state.windowStart
  const windowsDone = state.windowsDone + 1
  if (newest ? boundary.at >= edge : boundary.at <= edge) {
    const dense: DenseFinding = { at: edge, windowTotal }
    const nextEdge = newest ? edge - SECOND : edge + SECOND
    const next: PagerState = {
      ...base,
      ...(newest ? { windowEnd: nextEdge } : { windowStart: nextEdge }),
      skip: 0,
      boundaryAt: null,
      boundaryIds: [],
      boundaryLast: null,
      windowsDone,
      dense: [...state.dense, dense],
      done: newest ? nextEdge < state.windowStart : nextEdge >= rangeTo
    }
    return { next, fresh, reread: false, dense }
  }
  const next: PagerState = {
    ...base,
    ...(newest ? { windowEnd: boundary.at } : { windowStart: boundary.at }),
    skip: boundary.count - 1,
    expectFirst: boundary.last,
    windowsDone
  }
  return { next, fresh, reread: false, dense: null }
}

function dedupe(records: CallRecord[]): CallRecord[] {
  const seen = new Set<string>()
  return records.filter((r) => (seen.has(r.callId) ? false : (seen.add(r.callId), true)))
}
