import { DateTime } from 'luxon'
import type { SearchQuery } from '../../shared/domain'
import {
  LIST_MAX,
  type Annotation,
  type AnnotationPatch,
  type ListSource,
  type ReviewListInfo,
  type ReviewStats,
  type Score,
  type Scorecard,
  type ScorecardDefinition
} from '../../shared/review'
import type { CallCache } from '../cache'
import type { FieldChanges } from '../cache/review/annotation-store'
import { CallsightError } from '../errors'
import type { ReviewLookup } from '../export/review-columns'
import { maskText } from '../pii'
import type { LocalSearch } from '../search'
import { sample, type Candidate } from './sampling'
import { scoreOf } from './scoring'
import { queueDeletion, queueList, queueRemoval, queueScorecard } from './team-share'

/** Matches read from a search to sample from, at most (a sample is at most LIST_MAX). */
const SAMPLE_POOL_MAX = 2_000_000
const PAGE = 1000

export interface ReviewContext {
  cache: CallCache
  search: LocalSearch
  /** Who writes: the account's user name. */
  author: string
  now(): number
  zone: string
}

/** A note or tag as stored and exported: PII masked, like the service's own text. */
const guard = (text: string): string => maskText(text)

/** A scorecard's version and the answers, as the stored score with its total. */
export function computeScore(cache: CallCache, input: NonNullable<AnnotationPatch['score']>): Score {
  const card = cache.review.scorecards.get(input.scorecardId, input.version)
  if (!card) throw new CallsightError('NotFound', 'That scorecard (or its version) does not exist.')
  return scoreOf(card.id, card.version, card.criteria, input.answers)
}

/** Saves the fields the patch names (a note and tags masked for PII first). */
export function saveAnnotation(ctx: ReviewContext, patch: AnnotationPatch): Annotation {
  const changes: FieldChanges = {}
  if (patch.status !== undefined) changes.status = patch.status
  if (patch.tags !== undefined) changes.tags = patch.tags.map(guard)
  if (patch.note !== undefined) changes.note = guard(patch.note)
  if (patch.score !== undefined) changes.score = patch.score === null ? null : computeScore(ctx.cache, patch.score)
  return ctx.cache.review.annotations.write(patch.callId, changes, { author: ctx.author, at: ctx.now(), history: true })
}

export function saveScorecard(ctx: Pick<ReviewContext, 'cache' | 'author' | 'now'>, def: ScorecardDefinition, id?: string): Scorecard {
  const ids = new Set(def.criteria.map((c) => c.id))
  if (ids.size !== def.criteria.length) throw new CallsightError('InvalidInput', 'Two criteria of the scorecard share an id.')
  return ctx.cache.review.share.atomically(() => {
    const card = ctx.cache.review.scorecards.save(def, id, ctx.author, ctx.now())
    queueScorecard(ctx.cache, card)
    return card
  })
}

/** Every match of a query in its order, with its time (bounded). */
function candidatesOf(search: LocalSearch, query: SearchQuery, max: number): Candidate[] {
  const total = search.count(query)
  if (total > max) return []
  const out: Candidate[] = []
  for (let offset = 0; offset < total; offset += PAGE) {
    const rows = search.page(query, offset, PAGE).rows
    if (rows.length === 0) break
    for (const r of rows) out.push({ callId: r.callId, callAt: r.callAt })
  }
  return out
}

/** The calls a list source stands for: ids as given, a search's matches, or a sample of them. */
export function resolveSource(ctx: ReviewContext, source: ListSource): string[] {
  if (source.kind === 'ids') return source.ids
  const count = ctx.search.count(source.query)
  // An empty list would open nothing to review and say nothing about why: refused with the reason.
  if (count === 0) {
    throw new CallsightError(
      'InvalidInput',
      'The search finds no calls, so the list would be empty. Change the search (its filters, dates or "answered only") first.'
    )
  }
  if (source.sample === null) {
    if (count > LIST_MAX) {
      throw new CallsightError(
        'InvalidInput',
        `The search finds ${count.toLocaleString('en')} calls; a list holds at most ${LIST_MAX.toLocaleString('en')}. Sample it or narrow it.`
      )
    }
    return candidatesOf(ctx.search, source.query, LIST_MAX).map((c) => c.callId)
  }
  if (count > SAMPLE_POOL_MAX) {
    throw new CallsightError(
      'InvalidInput',
      `The search finds ${count.toLocaleString('en')} calls; sampling reads at most ${SAMPLE_POOL_MAX.toLocaleString('en')}. Narrow it first.`
    )
  }
  const picked = sample(candidatesOf(ctx.search, source.query, SAMPLE_POOL_MAX), source.sample, ctx.zone)
  if (picked.length > LIST_MAX)
    throw new CallsightError(
      'InvalidInput',
      `The sample holds ${picked.length.toLocaleString('en')} calls; a list holds at most ${LIST_MAX.toLocaleString('en')}.`
    )
  return picked
}

export function createList(ctx: ReviewContext, name: string, source: ListSource): ReviewListInfo {
  const ids = resolveSource(ctx, source)
  // The source is kept as given, except a long id list (the items are the list already).
  const kept = source.kind === 'ids' ? { kind: 'ids' as const, count: ids.length } : source
  const at = ctx.now()
  return ctx.cache.review.share.atomically(() => {
    const list = ctx.cache.review.reviewLists.create(name, ids, kept as ListSource, ctx.author, at)
    queueList(ctx.cache, list.id, at)
    return list
  })
}

/** Appends calls to a list (and queues the list for the team, with the calls it holds now and those it appended). */
export function addToList(ctx: Pick<ReviewContext, 'cache' | 'now'>, id: string, callIds: readonly string[]): ReviewListInfo {
  return ctx.cache.review.share.atomically(() => {
    const before = new Set(ctx.cache.review.reviewLists.callIds(id))
    const list = ctx.cache.review.reviewLists.add(id, callIds)
    const added = [...new Set(callIds)].filter((c) => !before.has(c))
    queueList(ctx.cache, id, ctx.now(), added)
    return list
  })
}

/** Removes calls (with their assignments) from a list here, and queues the removal for the team. */
export function removeFromList(ctx: Pick<ReviewContext, 'cache' | 'now'>, id: string, callIds: readonly string[]): ReviewListInfo {
  return ctx.cache.review.share.atomically(() => {
    ctx.cache.review.reviewLists.info(id)
    const held = ctx.cache.review.reviewLists.dropCalls(id, callIds)
    queueRemoval(ctx.cache, id, held, ctx.now())
    return ctx.cache.review.reviewLists.info(id)
  })
}

/** Deletes a list with its calls and assignments here, and queues the deletion for the team. */
export function deleteList(ctx: Pick<ReviewContext, 'cache' | 'now'>, id: string): void {
  ctx.cache.review.share.atomically(() => {
    ctx.cache.review.reviewLists.info(id)
    ctx.cache.review.reviewLists.delete(id)
    queueDeletion(ctx.cache, 'list', id, ctx.now())
  })
}

/** What an export reads for the `review` column: each call's annotation and every scorecard version. */
export function reviewLookup(cache: CallCache): ReviewLookup {
  return { annotation: (callId) => cache.review.annotations.get(callId), scorecards: cache.review.scorecards.allVersions() }
}

/** Insight's review charts: list progress, score distribution and trend, tags, statuses. */
export function reviewStats(cache: CallCache, zone: string): ReviewStats {
  const scored = cache.review.annotations.scoredTotals()
  const buckets = Array.from({ length: 10 }, (_, i) => ({ from: i * 10, to: i * 10 + 10, count: 0 }))
  const days = new Map<string, { sum: number; count: number }>()
  for (const [total, at] of scored) {
    buckets[Math.min(9, Math.max(0, Math.floor(total / 10)))]!.count++
    if (at === null) continue
    const day = DateTime.fromMillis(at, { zone }).toISODate() ?? ''
    const d = days.get(day) ?? { sum: 0, count: 0 }
    d.sum += total
    d.count++
    days.set(day, d)
  }
  const statuses = cache.review.annotations.statusCounts() as ReviewStats['statuses']
  return {
    lists: cache.review.reviewLists.list(),
    scoreBuckets: buckets,
    scoreByDay: [...days]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([day, d]) => ({ day, mean: Math.round((d.sum / d.count) * 10) / 10, count: d.count })),
    tags: cache.review.annotations.tagCounts(),
    statuses
  }
}
