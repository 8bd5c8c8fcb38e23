import type { Answers, Criterion, CriterionScale, Score } from '../../shared/review'
import { CallsightError } from '../errors'

/** The highest answer each scale allows (yes/no: 1 = yes). */
const TOP: Record<CriterionScale, number> = { yes_no: 1, '1_5': 5, '0_10': 10 }
const BOTTOM: Record<CriterionScale, number> = { yes_no: 0, '1_5': 1, '0_10': 0 }

/** An answer as a share of its scale, 0–1. */
export function share(scale: CriterionScale, answer: number): number {
  return (answer - BOTTOM[scale]) / (TOP[scale] - BOTTOM[scale])
}

/**
 * A critical criterion fails the call when answered "no" or in the lower half of its scale
 * (1–2 of 5, 0–4 of 10): the whole call then scores 0.
 */
export function failsCritical(c: Criterion, answer: number): boolean {
  return c.critical && share(c.scale, answer) < 0.5
}

/** Checks each answer against its criterion's scale; unknown criteria are refused. */
export function checkAnswers(criteria: readonly Criterion[], answers: Answers): void {
  const byId = new Map(criteria.map((c) => [c.id, c]))
  for (const [id, a] of Object.entries(answers)) {
    const c = byId.get(id)
    if (!c) throw new CallsightError('InvalidInput', `The scorecard has no criterion "${id}".`)
    if (a !== null && (a < BOTTOM[c.scale] || a > TOP[c.scale])) {
      throw new CallsightError('InvalidInput', `"${c.name}" takes an answer from ${BOTTOM[c.scale]} to ${TOP[c.scale]}.`)
    }
  }
}

/**
 * The total, 0–100: the weighted mean of the answered criteria's shares, rounded to one
 * decimal; null when nothing is answered. A failed critical criterion makes it 0.
 */
export function scoreOf(scorecardId: string, version: number, criteria: readonly Criterion[], answers: Answers): Score {
  checkAnswers(criteria, answers)
  let weight = 0
  let sum = 0
  let failed = false
  for (const c of criteria) {
    const a = answers[c.id]
    if (a === undefined || a === null) continue
    if (failsCritical(c, a)) failed = true
    weight += c.weight
    sum += c.weight * share(c.scale, a)
  }
  const total = failed ? 0 : weight > 0 ? Math.round((sum / weight) * 1000) / 10 : null
  return { scorecardId, version, answers, total, failed }
}
