import type { Scorecard } from '../../shared/review'
import type { CalibrationInfo } from '../../shared/review-team'
import type { CallCache } from '../cache'

/**
 * Queues the lead's and reviewers' shared work for the team cache (when sharing is on),
 * called inside the local write's transaction so that a write and its queued change are
 * kept or lost together. The values are what core/team/review-kinds-team.ts pushes; who may
 * write each is the team cache's to decide (a change refused there stays local work).
 */

export function queueScorecard(cache: CallCache, card: Scorecard): void {
  cache.review.share.enqueueRecord(
    'scorecard',
    card.id,
    String(card.version),
    { name: card.name, criteria: card.criteria, createdAt: card.createdAt },
    card.createdAt
  )
}

/**
 * A list with every call it holds now (the team cache keeps calls it has and adds the new),
 * and the calls this change appended: those win over an older removal of them elsewhere.
 */
export function queueList(cache: CallCache, listId: string, at: number, added: readonly string[] = []): void {
  const info = cache.review.reviewLists.info(listId)
  const source = cache.review.reviewLists.sourceOf(listId)
  cache.review.share.enqueueRecord(
    'list',
    listId,
    null,
    {
      name: info.name,
      source,
      createdAt: info.createdAt,
      items: cache.review.reviewLists.positions(listId),
      ...(added.length > 0 ? { added } : {})
    },
    at
  )
}

/**
 * Calls removed from a list (with their assignments), shared as one tombstone per call: the
 * team cache refuses it from anyone but a lead, and the other workstations remove the calls
 * with their next pull.
 */
export function queueRemoval(cache: CallCache, listId: string, callIds: readonly string[], at: number): void {
  if (callIds.length > 0) cache.review.share.enqueueRecord('list-removal', listId, null, { callIds }, at)
}

/** The calls' assignments in a list as they now stand (a reviewer, or none). */
export function queueAssignments(cache: CallCache, listId: string, callIds: Iterable<string>, at: number): void {
  const reviewers = new Map(cache.review.assignments.ofList(listId).map((r) => [r.callId, r.reviewer]))
  for (const callId of callIds)
    cache.review.share.enqueueRecord('assignment', callId, listId, { reviewer: reviewers.get(callId) ?? null }, at)
}

/** A new round, with the scorecard version it answers (reviewers need the form too). */
export function queueCalibration(cache: CallCache, s: CalibrationInfo): void {
  const card = cache.review.scorecards.get(s.scorecardId, s.scorecardVersion)
  if (card) queueScorecard(cache, card)
  cache.review.share.enqueueRecord(
    'calibration',
    s.id,
    null,
    {
      name: s.name,
      scorecardId: s.scorecardId,
      version: s.scorecardVersion,
      callIds: s.callIds,
      reviewers: s.reviewers,
      createdAt: s.createdAt
    },
    s.createdAt
  )
}

/** One author's answers of one call as they now stand: a reviewer's own, or the lead's reference. */
export function queueAnswers(cache: CallCache, sessionId: string, author: string, callId: string, at: number): void {
  const s = cache.review.calibration.info(sessionId)
  const answers = s.reviewers.includes(author)
    ? cache.review.calibration.answersOf(sessionId, author, callId)
    : (cache.review.calibration.reference(sessionId)[callId] ?? {})
  cache.review.share.enqueueRecord('calibration-answer', callId, sessionId, answers, at)
}

export function queueSubmission(cache: CallCache, sessionId: string, at: number): void {
  cache.review.share.enqueueRecord('calibration-submit', sessionId, null, {}, at)
}

/**
 * The deletion of a list (with its calls and assignments) or a calibration round (with its
 * answers and submissions), shared as a tombstone: the team cache refuses it from anyone
 * but a lead, and the other workstations delete it with their next pull.
 */
export function queueDeletion(cache: CallCache, kind: 'list' | 'calibration', id: string, at: number): void {
  cache.review.share.enqueueRecord('tombstone', id, kind, { deletedAt: at }, at)
}
