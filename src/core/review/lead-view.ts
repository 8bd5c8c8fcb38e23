import { DateTime } from 'luxon'
import type { Answers, Scorecard } from '../../shared/review'
import { AGENT_FIELD_DEFAULTS, type AgentField, type LeadStats, type MyAssignments, type ScoreGroup } from '../../shared/review-team'
import type { CallCache } from '../cache'
import { CallsightError } from '../errors'
import { spreadEvenly } from './assign'
import type { ReviewContext } from './review-service'
import { failsCritical } from './scoring'
import { queueAssignments } from './team-share'

/** The most assigned calls "my assignments" returns at once. */
export const MINE_MAX = 5_000

/** Assigns calls of a list to one reviewer by hand. */
export function assignCalls(ctx: ReviewContext, listId: string, callIds: readonly string[], reviewer: string): number {
  const at = ctx.now()
  return ctx.cache.review.share.atomically(() => {
    const n = ctx.cache.review.assignments.assign(listId, new Map(callIds.map((c) => [c, reviewer])), ctx.author, at)
    queueAssignments(ctx.cache, listId, callIds, at)
    return n
  })
}

/** Takes calls of a list back from whoever holds them. */
export function unassignCalls(ctx: Pick<ReviewContext, 'cache' | 'now'>, listId: string, callIds: readonly string[]): number {
  return ctx.cache.review.share.atomically(() => {
    const n = ctx.cache.review.assignments.unassign(listId, callIds)
    queueAssignments(ctx.cache, listId, callIds, ctx.now())
    return n
  })
}

/**
 * Spreads a list's calls evenly across the reviewers, in the list's order (spreadEvenly):
 * all of them, or only those not assigned yet (counting what each already holds).
 */
export function spreadList(
  ctx: ReviewContext,
  listId: string,
  reviewers: readonly string[],
  onlyUnassigned: boolean
): Array<{ reviewer: string; count: number }> {
  const rows = ctx.cache.review.assignments.ofList(listId)
  const calls = rows.filter((r) => !onlyUnassigned || r.reviewer === null).map((r) => r.callId)
  const already = onlyUnassigned ? ctx.cache.review.assignments.countsOf(listId) : new Map<string, number>()
  const spread = spreadEvenly(calls, reviewers, already)
  const at = ctx.now()
  ctx.cache.review.share.atomically(() => {
    ctx.cache.review.assignments.assign(listId, spread, ctx.author, at)
    queueAssignments(ctx.cache, listId, spread.keys(), at)
  })
  const counts = ctx.cache.review.assignments.countsOf(listId)
  return [...counts].map(([reviewer, count]) => ({ reviewer, count })).sort((a, b) => a.reviewer.localeCompare(b.reviewer))
}

export function myAssignments(cache: CallCache, reviewer: string): MyAssignments {
  const items = cache.review.assignments.mine(reviewer, MINE_MAX)
  const mine = cache.review.assignments.progress().byReviewer.find((r) => r.reviewer === reviewer)
  return { reviewer, items, assigned: mine?.assigned ?? 0, reviewed: mine?.reviewed ?? 0 }
}

/** The agent field to read: the one chosen, or the first default extra field the records carry. */
export function resolveAgentField(cache: CallCache, chosen: AgentField | null): AgentField | null {
  if (chosen) return chosen
  const name = AGENT_FIELD_DEFAULTS.find((n) => cache.review.leadReads.hasExtraField(n))
  return name === undefined ? null : { kind: 'field', name }
}

class Groups {
  private readonly map = new Map<string, { sum: number; count: number; buckets: number[] }>()
  add(name: string, total: number): void {
    const g = this.map.get(name) ?? { sum: 0, count: 0, buckets: new Array<number>(10).fill(0) }
    g.sum += total
    g.count++
    g.buckets[Math.min(9, Math.max(0, Math.floor(total / 10)))]!++
    this.map.set(name, g)
  }
  rows(): ScoreGroup[] {
    return [...this.map]
      .map(([name, g]) => ({ name, count: g.count, mean: Math.round((g.sum / g.count) * 10) / 10, buckets: g.buckets }))
      .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name))
  }
}

/**
 * The lead's view: assignment progress, scores per reviewer (who last changed the
 * annotation, as the reviewer filter reads it) and per agent, failed critical criteria, and
 * the mean per week (Monday first, in the zone) of the call's time.
 */
export function leadStats(cache: CallCache, zone: string, chosenAgent: AgentField | null): LeadStats {
  if (!DateTime.local().setZone(zone).isValid) throw new CallsightError('InvalidInput', `Unknown time zone ${zone}.`)
  const agentField = resolveAgentField(cache, chosenAgent)
  const rows = cache.review.leadReads.scored(agentField)
  const cards = new Map<string, Scorecard>(cache.review.scorecards.allVersions().map((s) => [`${s.id}:${s.version}`, s]))
  const perReviewer = new Groups()
  const perAgent = new Groups()
  const failedBy = new Map<string, { scorecardId: string; criterionId: string; name: string; count: number }>()
  const weeks = new Map<string, { sum: number; count: number; failed: number }>()
  for (const r of rows) {
    perReviewer.add(r.reviewer, r.total)
    if (r.agent !== null && r.agent !== '') perAgent.add(r.agent, r.total)
    const card = r.scorecardId === null ? undefined : cards.get(`${r.scorecardId}:${r.version}`)
    if (card && r.answers) {
      const answers = JSON.parse(r.answers) as Answers
      for (const c of card.criteria) {
        const a = answers[c.id]
        if (a === undefined || a === null || !failsCritical(c, a)) continue
        const key = `${card.id}\u0000${c.id}`
        // Named as in the newest version that has the criterion (the loop meets versions in order).
        const f = failedBy.get(key) ?? { scorecardId: card.id, criterionId: c.id, name: c.name, count: 0 }
        f.count++
        failedBy.set(key, f)
      }
    }
    if (r.callAt !== null) {
      const week = DateTime.fromMillis(r.callAt, { zone }).startOf('week').toISODate() ?? ''
      const w = weeks.get(week) ?? { sum: 0, count: 0, failed: 0 }
      w.sum += r.total
      w.count++
      if (r.failed === 1) w.failed++
      weeks.set(week, w)
    }
  }
  return {
    progress: cache.review.assignments.progress(),
    agentField,
    perReviewer: perReviewer.rows(),
    perAgent: perAgent.rows(),
    failedCritical: [...failedBy.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)),
    weeks: [...weeks]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([week, w]) => ({ week, mean: Math.round((w.sum / w.count) * 10) / 10, count: w.count, failed: w.failed }))
  }
}
