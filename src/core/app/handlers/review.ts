import type { Account } from '../../../shared/domain'
import { ScorecardFile } from '../../../shared/review'
import { CallsightError } from '../../errors'
import {
  addToList,
  createList,
  deleteList,
  removeFromList,
  reviewStats,
  saveAnnotation,
  saveScorecard,
  type ReviewContext
} from '../../review/review-service'
import { parseJson } from '../../review/transfer'
import type { AppState } from '../app-state'
import type { Handlers } from '../host-ports'

export type ReviewHandlers = Pick<
  Handlers,
  | 'annotations.get'
  | 'annotations.save'
  | 'annotations.undo'
  | 'annotations.tags'
  | 'annotations.resolveConflict'
  | 'scorecards.list'
  | 'scorecards.save'
  | 'scorecards.import'
  | 'scorecards.export'
  | 'reviewLists.list'
  | 'reviewLists.create'
  | 'reviewLists.add'
  | 'reviewLists.removeCalls'
  | 'reviewLists.delete'
  | 'reviewLists.items'
  | 'reviewLists.nextUnreviewed'
  | 'review.stats'
>

/**
 * Who writes: on an account fed from a team cache, the PostgreSQL role it logs in as (the
 * name the team cache records as author, never a typed one); else the account's user name.
 */
export function authorOf(account: Account): string {
  if (account.teamCache) {
    try {
      const user = decodeURIComponent(new URL(account.teamCache.url).username)
      if (user) return user
    } catch {
      // An unreadable address was refused when the account was set up; fall back.
    }
  }
  return account.username
}

/**
 * Who reviews on this computer: on a team cache account its PostgreSQL role (see authorOf);
 * else the reviewer name set in Settings (a local account shared by a lead and reviewers
 * switches it), else the account's user name.
 */
export function reviewerName(state: AppState): string {
  const account = state.requireRuntime().account
  if (account.teamCache) return authorOf(account)
  return state.settings().review.reviewer ?? account.username
}

/** The active account's review context, writing as the current reviewer. */
export function reviewContext(state: AppState): ReviewContext {
  const rt = state.requireRuntime()
  return {
    cache: rt.cache,
    search: rt.search,
    author: reviewerName(state),
    now: () => state.platform.clock.now(),
    zone: state.displayZone()
  }
}

/**
 * Review: annotations, scorecards and review lists in the active account's cache. They work
 * signed out (review is offline work); they need an account whose cache is open.
 */
export function reviewHandlers(state: AppState): ReviewHandlers {
  const ctx = (): ReviewContext => reviewContext(state)
  const cache = () => state.requireRuntime().cache
  /**
   * After a save (and after a lead's list or scorecard, queued for the team the same way): the
   * team panel's "N changes waiting" follows the outbox, and the live sync pushes it shortly.
   */
  const queued = <T>(value: T): T => {
    const share = state.runtime?.cache.review.share
    if (share?.enabled) {
      state.platform.events.emit('review.queue', { waiting: share.waiting(), refused: share.refusedCount() })
      state.reviewSaved()
    }
    return value
  }
  return {
    'annotations.get': async ({ callId }) => cache().review.annotations.get(callId),
    'annotations.save': async (patch) => queued(saveAnnotation(ctx(), patch)),
    'annotations.undo': async ({ callId }) => {
      const c = ctx()
      return queued(c.cache.review.annotations.undo(callId, c.author, c.now()))
    },
    'annotations.resolveConflict': async ({ conflictId, choice }) => {
      const c = ctx()
      return queued(c.cache.review.annotations.resolveConflict(conflictId, choice, c.author, c.now()))
    },
    'annotations.tags': async () => (state.runtime ? state.runtime.cache.review.annotations.tagCounts() : []),

    'scorecards.list': async () => (state.runtime ? state.runtime.cache.review.scorecards.latest() : []),
    'scorecards.save': async ({ id, definition }) => queued(saveScorecard(ctx(), definition, id)),
    'scorecards.import': async ({ json }) => {
      const parsed = ScorecardFile.safeParse(parseJson(json))
      if (!parsed.success) throw new CallsightError('InvalidInput', 'The file is not a scorecard export.', { cause: parsed.error })
      const c = ctx()
      return queued(parsed.data.scorecards.map(({ id, ...def }) => saveScorecard(c, def, id)))
    },
    'scorecards.export': async ({ ids }) => {
      const cards = cache()
        .review.scorecards.latest()
        .filter((s) => ids === undefined || ids.includes(s.id))
      const file: ScorecardFile = {
        format: 'callsight-scorecards',
        version: 1,
        scorecards: cards.map((s) => ({ id: s.id, name: s.name, criteria: s.criteria }))
      }
      return { json: `${JSON.stringify(file, null, 2)}\n` }
    },

    'reviewLists.list': async () => (state.runtime ? state.runtime.cache.review.reviewLists.list() : []),
    'reviewLists.create': async ({ name, source }) => queued(createList(ctx(), name, source)),
    'reviewLists.add': async ({ id, callIds }) => queued(addToList(ctx(), id, callIds)),
    'reviewLists.removeCalls': async ({ id, callIds }) => queued(removeFromList(ctx(), id, callIds)),
    'reviewLists.delete': async ({ id }) => {
      deleteList(ctx(), id)
      return queued({ ok: true as const })
    },
    'reviewLists.items': async ({ id, offset, limit }) => {
      const lists = cache().review.reviewLists
      return { list: lists.info(id), items: lists.items(id, offset, limit) }
    },
    'reviewLists.nextUnreviewed': async ({ id, index }) => {
      const lists = cache().review.reviewLists
      lists.info(id)
      return lists.nextUnreviewed(id, index)
    },
    'review.stats': async ({ zone }) =>
      state.runtime
        ? reviewStats(state.runtime.cache, zone ?? state.displayZone())
        : { lists: [], scoreBuckets: [], scoreByDay: [], tags: [], statuses: [] }
  }
}
