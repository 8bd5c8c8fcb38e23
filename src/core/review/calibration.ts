import type { Answers, Criterion, Scorecard } from '../../shared/review'
import {
  CALIBRATION_CALLS_MAX,
  type CallAnswers,
  type CalibrationCreate,
  type CalibrationInfo,
  type CalibrationResult,
  type CalibrationView
} from '../../shared/review-team'
import type { CallCache } from '../cache'
import { CallsightError } from '../errors'
import { krippendorffAlpha, percentAgreement, spreadOf, type Metric, type Unit } from './agreement'
import { resolveSource, type ReviewContext } from './review-service'
import { checkAnswers, scoreOf, share } from './scoring'
import { queueAnswers, queueCalibration, queueDeletion, queueSubmission } from './team-share'

/**
 * Calibration: a lead has several reviewers score the same calls blind, then compares them
 * with each other and with the lead's reference answers (docs/review.md).
 */

/** Pass/fail criteria are categories; scales are equal steps, as the total counts them. */
export const metricOf = (c: Criterion): Metric => (c.scale === 'yes_no' ? 'nominal' : 'interval')

export function createCalibration(ctx: ReviewContext, req: CalibrationCreate): CalibrationInfo {
  const card = ctx.cache.review.scorecards.get(req.scorecardId, req.version)
  if (!card) throw new CallsightError('NotFound', 'That scorecard (or its version) does not exist.')
  const callIds = [...new Set(resolveSource(ctx, req.calls))]
  if (callIds.length === 0) throw new CallsightError('InvalidInput', 'A calibration session needs at least one call.')
  if (callIds.length > CALIBRATION_CALLS_MAX)
    throw new CallsightError('InvalidInput', `A calibration session takes at most ${CALIBRATION_CALLS_MAX} calls.`)
  const reviewers = [...new Set(req.reviewers)]
  if (reviewers.length < 2) throw new CallsightError('InvalidInput', 'A calibration session needs at least two reviewers.')
  return ctx.cache.review.share.atomically(() => {
    const s = ctx.cache.review.calibration.create(
      { name: req.name, scorecardId: card.id, scorecardVersion: card.version, callIds, reviewers },
      ctx.author,
      ctx.now()
    )
    queueCalibration(ctx.cache, s)
    return s
  })
}

/** Deletes a round with its answers and submissions here, and queues the deletion for the team. */
export function deleteCalibration(ctx: Pick<ReviewContext, 'cache' | 'now'>, id: string): void {
  ctx.cache.review.share.atomically(() => {
    ctx.cache.review.calibration.info(id)
    ctx.cache.review.calibration.delete(id)
    queueDeletion(ctx.cache, 'calibration', id, ctx.now())
  })
}

function sessionCard(cache: CallCache, s: CalibrationInfo): Scorecard {
  const card = cache.review.scorecards.get(s.scorecardId, s.scorecardVersion)
  if (!card) throw new CallsightError('NotFound', 'The scorecard of that calibration session no longer exists.')
  return card
}

/** The viewer's answers for one call; refused for a non-reviewer and after submitting. */
export function answerCalibration(ctx: ReviewContext, sessionId: string, callId: string, answers: Answers): CalibrationView {
  const s = ctx.cache.review.calibration.info(sessionId)
  if (!s.reviewers.includes(ctx.author))
    throw new CallsightError('InvalidInput', `${ctx.author} is not a reviewer of this calibration session.`)
  if (s.submitted.includes(ctx.author)) throw new CallsightError('InvalidInput', 'Your answers to this session are submitted already.')
  if (!s.callIds.includes(callId)) throw new CallsightError('InvalidInput', 'That call is not in this calibration session.')
  checkAnswers(sessionCard(ctx.cache, s).criteria, answers)
  const at = ctx.now()
  ctx.cache.review.share.atomically(() => {
    ctx.cache.review.calibration.saveAnswers(sessionId, ctx.author, callId, answers, at)
    queueAnswers(ctx.cache, sessionId, ctx.author, callId, at)
  })
  return calibrationView(ctx.cache, sessionId, ctx.author)
}

export function submitCalibration(ctx: ReviewContext, sessionId: string): CalibrationView {
  const s = ctx.cache.review.calibration.info(sessionId)
  if (!s.reviewers.includes(ctx.author))
    throw new CallsightError('InvalidInput', `${ctx.author} is not a reviewer of this calibration session.`)
  const at = ctx.now()
  ctx.cache.review.share.atomically(() => {
    ctx.cache.review.calibration.submit(sessionId, ctx.author, at)
    queueSubmission(ctx.cache, sessionId, at)
  })
  return calibrationView(ctx.cache, sessionId, ctx.author)
}

/** The lead's reference answers for one call; a reviewer of the session may not set them. */
export function setCalibrationReference(ctx: ReviewContext, sessionId: string, callId: string, answers: Answers): CalibrationView {
  const s = ctx.cache.review.calibration.info(sessionId)
  if (s.reviewers.includes(ctx.author))
    throw new CallsightError('InvalidInput', 'A reviewer of the session cannot set its reference answers.')
  if (!s.callIds.includes(callId)) throw new CallsightError('InvalidInput', 'That call is not in this calibration session.')
  checkAnswers(sessionCard(ctx.cache, s).criteria, answers)
  ctx.cache.review.share.atomically(() => {
    ctx.cache.review.calibration.setReference(sessionId, callId, answers)
    queueAnswers(ctx.cache, sessionId, ctx.author, callId, ctx.now())
  })
  return calibrationView(ctx.cache, sessionId, ctx.author)
}

/**
 * A session as `viewer` may see it. Blind: a reviewer of the session who has not submitted
 * gets only their own answers — no one else's, no reference, no result. Anyone else (the
 * lead) and a reviewer who has submitted get everything.
 */
export function calibrationView(cache: CallCache, sessionId: string, viewer: string): CalibrationView {
  const session = cache.review.calibration.info(sessionId)
  const isReviewer = session.reviewers.includes(viewer)
  const submitted = session.submitted.includes(viewer)
  const blind = isReviewer && !submitted
  const all = cache.review.calibration.answers(sessionId)
  const mine = all.get(viewer) ?? {}
  if (blind) return { session, viewer, isReviewer, submitted, blind, mine, others: [], reference: {}, result: null }
  const reference = cache.review.calibration.reference(sessionId)
  const card = sessionCard(cache, session)
  return {
    session,
    viewer,
    isReviewer,
    submitted,
    blind,
    mine,
    others: session.reviewers.filter((r) => r !== viewer).map((reviewer) => ({ reviewer, answers: all.get(reviewer) ?? {} })),
    reference,
    result: calibrationResult(session, card, all, reference, (r) => cache.review.calibration.submittedAt(sessionId, r))
  }
}

const answerOf = (a: CallAnswers | undefined, callId: string, criterionId: string): number | null => a?.[callId]?.[criterionId] ?? null

/** Share of paired answers equal to the reference; null without a pair. */
function referenceShare(pairs: ReadonlyArray<[number | null, number | null]>): number | null {
  const both = pairs.filter(([a, r]) => a !== null && r !== null)
  return both.length === 0 ? null : both.filter(([a, r]) => a === r).length / both.length
}

/** The session's agreement per criterion, per call and per reviewer (pure over what it is given). */
export function calibrationResult(
  session: Pick<CalibrationInfo, 'callIds' | 'reviewers'>,
  card: Pick<Scorecard, 'id' | 'version' | 'criteria'>,
  answers: ReadonlyMap<string, CallAnswers>,
  reference: CallAnswers,
  submittedAt: (reviewer: string) => number | null = () => null
): CalibrationResult {
  const { callIds, reviewers } = session
  const criteria = card.criteria.map((c) => {
    const units: Unit[] = callIds.map((callId) => reviewers.map((r) => answerOf(answers.get(r), callId, c.id)))
    const spreads = units.map((u) => spreadOf(u)).filter((s) => s !== null && s.count >= 2)
    const refPairs = callIds.flatMap((callId) =>
      reviewers.map((r): [number | null, number | null] => [answerOf(answers.get(r), callId, c.id), answerOf(reference, callId, c.id)])
    )
    return {
      criterionId: c.id,
      name: c.name,
      scale: c.scale,
      critical: c.critical,
      metric: metricOf(c),
      alpha: krippendorffAlpha(units, metricOf(c)),
      percent: percentAgreement(units),
      meanSd: spreads.length === 0 ? null : spreads.reduce((s, x) => s + x!.sd, 0) / spreads.length,
      widest: spreads.length === 0 ? null : Math.max(...spreads.map((x) => x!.max - x!.min)),
      reference: referenceShare(refPairs)
    }
  })
  const totalOf = (a: CallAnswers | undefined, callId: string) => {
    const given = a?.[callId]
    if (!given || Object.keys(given).length === 0) return null
    return scoreOf(card.id, card.version, card.criteria, given)
  }
  const calls = callIds.map((callId) => {
    const totals = reviewers.map((reviewer) => {
      const s = totalOf(answers.get(reviewer), callId)
      return { reviewer, total: s?.total ?? null, failed: s?.failed ?? false }
    })
    const units: Unit[] = card.criteria.map((c) => reviewers.map((r) => answerOf(answers.get(r), callId, c.id)))
    return {
      callId,
      totals,
      referenceTotal: totalOf(reference, callId)?.total ?? null,
      spread: spreadOf(totals.map((t) => t.total)),
      percent: percentAgreement(units)
    }
  })
  // Every (call, criterion) as one unit, answers as shares of their scale so scales mix.
  const everyUnit: Unit[] = callIds.flatMap((callId) =>
    card.criteria.map((c) =>
      reviewers.map((r) => {
        const a = answerOf(answers.get(r), callId, c.id)
        return a === null ? null : share(c.scale, a)
      })
    )
  )
  return {
    alpha: krippendorffAlpha(everyUnit, 'interval'),
    percent: percentAgreement(
      card.criteria.flatMap((c) => callIds.map((callId) => reviewers.map((r) => answerOf(answers.get(r), callId, c.id))))
    ),
    criteria,
    calls,
    reviewers: reviewers.map((reviewer) => {
      const mine = answers.get(reviewer)
      const pairs = callIds.flatMap((callId) =>
        card.criteria.map((c): [number | null, number | null] => [answerOf(mine, callId, c.id), answerOf(reference, callId, c.id)])
      )
      return {
        reviewer,
        answered: pairs.filter(([a]) => a !== null).length,
        reference: referenceShare(pairs),
        submittedAt: submittedAt(reviewer)
      }
    })
  }
}
