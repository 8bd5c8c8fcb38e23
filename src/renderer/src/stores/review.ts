import { defineStore } from 'pinia'
import { computed, ref, shallowRef } from 'vue'
import type { CallRecord, SearchQuery } from '../../../shared/domain'
import type { AppErrorInfo } from '../../../shared/errors'
import type { Annotation, ReviewListInfo, ReviewListItem, Sampling, Scorecard } from '../../../shared/review'
import type { Request } from '../../../shared/ipc/contract'
import type { AssignmentItem } from '../../../shared/review-team'
import { call } from '../api'
import { toErrorInfo } from '../lib/errorMessage'

type Patch = Omit<Request<'annotations.save'>, 'callId'>

/** What review mode says after a digit: words given by the view (i18n), facts by the store. */
export type AnswerMessage =
  | { kind: 'moved'; criterion: string; value: number; next: string }
  | { kind: 'done'; criterion: string; value: number }
  | { kind: 'rejected'; criterion: string; value: number; min: number; max: number }

const defaultSay = (m: AnswerMessage): string => JSON.stringify(m)

/**
 * What the last removal of calls from a list came to, for the view to say in words: done
 * here, or refused by the team cache (only a lead removes from a shared list) and undone.
 */
export type RemovalNotice = { kind: 'removed' | 'refused'; list: string; count: number }

/**
 * Review: the lists, the scorecards, and review mode's position in the open list (the call
 * shown, its annotation, the focused criterion). Every change goes through the contract and
 * the annotation shown is the one the core returned.
 */
export const useReviewStore = defineStore('review', () => {
  const lists = ref<ReviewListInfo[]>([])
  const scorecards = ref<Scorecard[]>([])
  const tags = ref<Array<{ tag: string; count: number }>>([])
  const error = ref<AppErrorInfo | null>(null)

  const list = ref<ReviewListInfo | null>(null)
  const index = ref(0)
  const item = ref<ReviewListItem | null>(null)
  const record = shallowRef<CallRecord | null>(null)
  const annotation = shallowRef<Annotation | null>(null)
  /** The scorecard review mode scores with, and the criterion digits answer. */
  const scorecardId = ref<string | null>(null)
  const focused = ref(0)
  /**
   * What the last key did in review mode, said aloud (aria-live) and shown: the answer saved
   * and the criterion focused next, or why a digit was not an answer. Never silent.
   */
  const announcement = ref<{ text: string; kind: 'moved' | 'rejected' | 'done' } | null>(null)
  /** When the last "next call" was asked for and shown (performance.now), for the e2e budget. */
  const shownIn = ref<number | null>(null)
  const removalNotice = ref<RemovalNotice | null>(null)

  /**
   * "My assignments": while set, review mode walks the current reviewer's assigned calls
   * (across lists, the not-done first) instead of one list: J/K move in it, U goes to the
   * next of them not reviewed.
   */
  const mine = ref<AssignmentItem[] | null>(null)
  const mineProgress = ref<{ assigned: number; reviewed: number } | null>(null)
  const mineAt = computed(() =>
    mine.value ? mine.value.findIndex((m) => m.callId === item.value?.callId && m.listId === list.value?.id) : -1
  )

  const scorecard = computed(() => scorecards.value.find((s) => s.id === scorecardId.value) ?? scorecards.value[0] ?? null)

  async function guarded<T>(work: () => Promise<T>): Promise<T | undefined> {
    try {
      error.value = null
      return await work()
    } catch (e) {
      error.value = toErrorInfo(e)
      return undefined
    }
  }

  async function loadLookups(): Promise<void> {
    await guarded(async () => {
      const [l, s, t] = await Promise.all([call('reviewLists.list', {}), call('scorecards.list', {}), call('annotations.tags', {})])
      lists.value = l
      scorecards.value = s
      tags.value = t
      if (scorecardId.value === null && s[0]) scorecardId.value = s[0].id
    })
  }

  async function createFromSearch(name: string, query: SearchQuery, sample: Sampling | null): Promise<ReviewListInfo | undefined> {
    return guarded(async () => {
      const created = await call('reviewLists.create', { name, source: { kind: 'query', query, sample } })
      lists.value = await call('reviewLists.list', {})
      return created
    })
  }

  async function createFromIds(name: string, ids: string[]): Promise<ReviewListInfo | undefined> {
    return guarded(async () => {
      const created = await call('reviewLists.create', { name, source: { kind: 'ids', ids } })
      lists.value = await call('reviewLists.list', {})
      return created
    })
  }

  async function removeList(id: string): Promise<void> {
    await guarded(async () => {
      await call('reviewLists.delete', { id })
      lists.value = await call('reviewLists.list', {})
      if (list.value?.id === id) list.value = null
    })
  }

  /** Shows the list's call at `at` (clamped): its record and annotation. */
  async function show(at: number): Promise<void> {
    if (!list.value) return
    const started = performance.now()
    await guarded(async () => {
      const { list: info, items } = await call('reviewLists.items', { id: list.value!.id, offset: Math.max(0, at), limit: 1 })
      list.value = info
      const it = items[0] ?? null
      if (!it) return
      const [rec, ann] = await Promise.all([call('calls.get', { callId: it.callId }), call('annotations.get', { callId: it.callId })])
      index.value = it.position
      item.value = it
      record.value = rec
      annotation.value = ann
      focused.value = 0
      announcement.value = null
      if (ann?.score) scorecardId.value = ann.score.scorecardId
      shownIn.value = performance.now() - started
    })
  }

  async function showAssigned(it: AssignmentItem): Promise<void> {
    list.value = lists.value.find((l) => l.id === it.listId) ?? {
      id: it.listId,
      name: it.listName,
      createdAt: 0,
      author: '',
      size: 0,
      reviewed: 0
    }
    await show(it.position)
  }

  async function loadMine(): Promise<AssignmentItem[] | undefined> {
    const m = await guarded(() => call('assignments.mine', {}))
    if (!m) return undefined
    mine.value = m.items
    mineProgress.value = { assigned: m.assigned, reviewed: m.reviewed }
    return m.items
  }

  /** The counts and each call's done flag again, keeping the order walked (J/K stay where they were). */
  async function refreshMine(): Promise<void> {
    const m = await guarded(() => call('assignments.mine', {}))
    if (!m || !mine.value) return
    const byKey = new Map(m.items.map((i) => [`${i.listId}\u0000${i.callId}`, i]))
    mine.value = mine.value.map((i) => byKey.get(`${i.listId}\u0000${i.callId}`) ?? i)
    mineProgress.value = { assigned: m.assigned, reviewed: m.reviewed }
  }

  /** Opens "my assignments" at the next unreviewed one (the first, as they come ordered). */
  async function openMine(): Promise<void> {
    const items = await loadMine()
    announcement.value = null
    if (items?.[0]) await showAssigned(items[0])
  }

  /** Opens a list at `at`, or by default at its first unreviewed call (its first call when all are reviewed). */
  async function open(listId: string, at?: number): Promise<void> {
    mine.value = null
    removalNotice.value = null
    list.value = lists.value.find((l) => l.id === listId) ?? { id: listId, name: '', createdAt: 0, author: '', size: 0, reviewed: 0 }
    announcement.value = null
    let start = at ?? 0
    if (at === undefined) {
      const found = await guarded(() => call('reviewLists.nextUnreviewed', { id: listId, index: -1 }))
      if (found) start = found.position
    }
    await show(start)
  }

  /** Moves by `step` in my assignments; false when not walking them. */
  function stepMine(step: number): Promise<void> | false {
    if (!mine.value) return false
    const to = mine.value[mineAt.value + step]
    return to && mineAt.value >= 0 ? showAssigned(to) : Promise.resolve()
  }
  const next = (): Promise<void> =>
    stepMine(1) || (list.value && index.value < list.value.size - 1 ? show(index.value + 1) : Promise.resolve())
  const prev = (): Promise<void> => stepMine(-1) || (index.value > 0 ? show(index.value - 1) : Promise.resolve())

  async function nextUnreviewed(): Promise<void> {
    if (mine.value) {
      // Read again: a call reviewed since moved to the end, and the first not done is next.
      const items = await loadMine()
      const to =
        items?.find((m) => !m.done && !(m.callId === item.value?.callId && m.listId === list.value?.id)) ?? items?.find((m) => !m.done)
      if (to) await showAssigned(to)
      return
    }
    if (!list.value) return
    const found = await guarded(() => call('reviewLists.nextUnreviewed', { id: list.value!.id, index: index.value }))
    if (found) await show(found.position)
  }

  async function refreshProgress(): Promise<void> {
    if (!list.value) return
    const { list: info } = await call('reviewLists.items', { id: list.value.id, offset: 0, limit: 1 })
    list.value = info
    // The sidebar's count is the same list's: both say the same "N of M reviewed".
    lists.value = lists.value.map((l) => (l.id === info.id ? info : l))
  }

  /** Saves fields of the shown call's annotation (or of `callId`). */
  async function save(patch: Patch, callId?: string): Promise<Annotation | undefined> {
    const id = callId ?? item.value?.callId ?? record.value?.callId
    if (!id) return undefined
    const saved = await guarded(() => call('annotations.save', { callId: id, ...patch }))
    if (saved && (callId === undefined || callId === item.value?.callId)) annotation.value = saved
    if (saved && patch.tags) tags.value = await call('annotations.tags', {})
    if (saved && patch.status && list.value) await refreshProgress()
    if (saved && patch.status && mine.value) await refreshMine()
    return saved
  }

  /** Keeps one side of a conflict of a team field; the annotation comes back without it. */
  async function resolveConflict(conflictId: string, choice: 'mine' | 'theirs', callId?: string): Promise<Annotation | undefined> {
    const id = callId ?? item.value?.callId ?? record.value?.callId
    const resolved = await guarded(() => call('annotations.resolveConflict', { conflictId, choice }))
    if (resolved && (callId === undefined || id === item.value?.callId)) annotation.value = resolved
    if (resolved && list.value) await refreshProgress()
    return resolved
  }

  async function undo(callId?: string): Promise<void> {
    const id = callId ?? item.value?.callId
    if (!id) return
    const back = await guarded(() => call('annotations.undo', { callId: id }))
    if (back !== undefined && back !== null) {
      annotation.value = back
      if (list.value) await refreshProgress()
    }
  }

  /**
   * Answers the focused criterion of the current scorecard with `value`, then focuses the
   * next criterion still blank (after it, then from the top), and says so. A digit the
   * criterion's scale has no answer for changes nothing and says why; it never falls through
   * to another criterion.
   */
  async function answer(value: number, say: (m: AnswerMessage) => string = defaultSay): Promise<void> {
    const card = scorecard.value
    const criterion = card?.criteria[focused.value]
    if (!card || !criterion) return
    const max = criterion.scale === 'yes_no' ? 1 : criterion.scale === '1_5' ? 5 : 10
    const min = criterion.scale === '1_5' ? 1 : 0
    if (value < min || value > max) {
      announcement.value = { kind: 'rejected', text: say({ kind: 'rejected', criterion: criterion.name, value, min, max }) }
      return
    }
    const previous =
      annotation.value?.score?.scorecardId === card.id && annotation.value.score.version === card.version
        ? annotation.value.score.answers
        : {}
    const answers = { ...previous, [criterion.id]: value }
    const saved = await save({ score: { scorecardId: card.id, version: card.version, answers } })
    if (!saved) return
    const n = card.criteria.length
    const at = focused.value
    let nextAt: number | null = null
    for (let step = 1; step < n && nextAt === null; step++) {
      const i = (at + step) % n
      if (answers[card.criteria[i]!.id] === undefined) nextAt = i
    }
    if (nextAt === null) {
      announcement.value = { kind: 'done', text: say({ kind: 'done', criterion: criterion.name, value }) }
      return
    }
    focused.value = nextAt
    announcement.value = {
      kind: 'moved',
      text: say({ kind: 'moved', criterion: criterion.name, value, next: card.criteria[nextAt]!.name })
    }
  }

  /**
   * Takes `callIds` (by default the call shown) out of the open list, then shows the call
   * that took its place (the next one; the new last one at the end), or the call at `showAt`
   * (where the call shown moved when calls before it went). Walking "my assignments", moves
   * on to the assignment that followed it.
   */
  async function removeCalls(callIds?: readonly string[], showAt?: number): Promise<boolean> {
    const open = list.value
    const ids = callIds ?? (item.value ? [item.value.callId] : [])
    if (!open || ids.length === 0) return false
    const at = mine.value ? mineAt.value : (showAt ?? index.value)
    const info = await guarded(() => call('reviewLists.removeCalls', { id: open.id, callIds: [...ids] }))
    if (!info) return false
    removalNotice.value = { kind: 'removed', list: info.name, count: ids.length }
    list.value = info
    lists.value = lists.value.map((l) => (l.id === info.id ? info : l))
    if (mine.value) {
      const items = await loadMine()
      const to = items?.[Math.min(Math.max(0, at), items.length - 1)]
      if (to) await showAssigned(to)
      else clearShown()
    } else if (info.size > 0) await show(Math.min(at, info.size - 1))
    else clearShown()
    return true
  }

  function clearShown(): void {
    item.value = null
    record.value = null
    annotation.value = null
  }

  /**
   * The team cache refused removals made here (not a lead's) and put the calls back: says so,
   * and reads the lists and the open one again so the calls show where they were.
   */
  async function removalsRefused(refused: ReadonlyArray<{ listId: string; calls: number }>): Promise<void> {
    const first = refused[0]
    if (!first) return
    await guarded(async () => {
      lists.value = await call('reviewLists.list', {})
    })
    const name = lists.value.find((l) => l.id === first.listId)?.name ?? list.value?.name ?? ''
    removalNotice.value = { kind: 'refused', list: name, count: refused.reduce((n, r) => n + r.calls, 0) }
    if (list.value && refused.some((r) => r.listId === list.value?.id)) {
      if (mine.value) await refreshMine()
      await show(index.value)
    }
  }

  async function saveScorecard(definition: Request<'scorecards.save'>['definition'], id?: string): Promise<Scorecard | undefined> {
    return guarded(async () => {
      const saved = await call('scorecards.save', { definition, ...(id ? { id } : {}) })
      scorecards.value = await call('scorecards.list', {})
      return saved
    })
  }

  async function importScorecards(json: string): Promise<void> {
    await guarded(async () => {
      await call('scorecards.import', { json })
      scorecards.value = await call('scorecards.list', {})
    })
  }

  return {
    lists,
    scorecards,
    tags,
    error,
    list,
    index,
    item,
    record,
    annotation,
    scorecardId,
    scorecard,
    focused,
    announcement,
    shownIn,
    removalNotice,
    mine,
    mineAt,
    mineProgress,
    openMine,
    refreshMine,
    loadLookups,
    createFromSearch,
    createFromIds,
    removeList,
    removeCalls,
    removalsRefused,
    open,
    show,
    next,
    prev,
    nextUnreviewed,
    save,
    resolveConflict,
    undo,
    answer,
    saveScorecard,
    importScorecards
  }
})
