import { defineStore } from 'pinia'
import { computed, ref } from 'vue'
import type { AppErrorInfo } from '../../../shared/errors'
import type { Answers } from '../../../shared/review'
import type { AssignmentProgress, CalibrationInfo, CalibrationView, LeadStats } from '../../../shared/review-team'
import { call } from '../api'
import { toErrorInfo } from '../lib/errorMessage'
import { useAppStore } from './app'

/**
 * Team review: who reviews on this computer, assignments of lists to reviewers, calibration
 * sessions (the open one as the current reviewer may see it) and Insight's lead view.
 */
export const useTeamReviewStore = defineStore('teamReview', () => {
  const app = useAppStore()
  const reviewer = ref('')
  const progress = ref<AssignmentProgress | null>(null)
  const sessions = ref<CalibrationInfo[]>([])
  const session = ref<CalibrationView | null>(null)
  /** The call of the open session being scored, and its focused criterion. */
  const callAt = ref(0)
  const focused = ref(0)
  const lead = ref<LeadStats | null>(null)
  const error = ref<AppErrorInfo | null>(null)

  async function guarded<T>(work: () => Promise<T>): Promise<T | undefined> {
    try {
      error.value = null
      return await work()
    } catch (e) {
      error.value = toErrorInfo(e)
      return undefined
    }
  }

  async function loadReviewer(): Promise<void> {
    await guarded(async () => {
      reviewer.value = (await call('review.reviewer', {})).reviewer
    })
  }

  /** Reviews as `name` from now on (empty: the account's user name). */
  async function setReviewer(name: string): Promise<void> {
    await guarded(async () => {
      await app.updateSettings({ review: { reviewer: name.trim() === '' ? null : name.trim() } })
      await loadReviewer()
      if (session.value) await openSession(session.value.session.id)
    })
  }

  async function loadProgress(): Promise<void> {
    await guarded(async () => {
      progress.value = await call('assignments.progress', {})
    })
  }

  async function spread(listId: string, reviewers: string[], onlyUnassigned: boolean): Promise<void> {
    await guarded(async () => {
      await call('assignments.spread', { listId, reviewers, onlyUnassigned })
      progress.value = await call('assignments.progress', {})
    })
  }

  async function loadSessions(): Promise<void> {
    await guarded(async () => {
      sessions.value = await call('calibration.list', {})
    })
  }

  async function createSession(name: string, scorecardId: string, callIds: string[], reviewers: string[]): Promise<void> {
    await guarded(async () => {
      const created = await call('calibration.create', { name, scorecardId, calls: { kind: 'ids', ids: callIds }, reviewers })
      sessions.value = await call('calibration.list', {})
      await openSession(created.id)
    })
  }

  async function openSession(id: string): Promise<void> {
    await guarded(async () => {
      const before = session.value
      session.value = await call('calibration.get', { id })
      // The same session for the same viewer keeps its place; another viewer starts at the top.
      if (before?.session.id !== id || before.viewer !== session.value.viewer) {
        callAt.value = 0
        focused.value = 0
      }
    })
  }

  const currentCall = computed(() => session.value?.session.callIds[callAt.value] ?? null)

  async function answer(answers: Answers): Promise<boolean> {
    if (!session.value || !currentCall.value) return false
    const id = session.value.session.id
    const callId = currentCall.value
    const view = session.value.isReviewer
      ? await guarded(() => call('calibration.answer', { id, callId, answers }))
      : await guarded(() => call('calibration.reference', { id, callId, answers }))
    if (view) session.value = view
    return view !== undefined
  }

  async function submit(): Promise<void> {
    if (!session.value) return
    const id = session.value.session.id
    await guarded(async () => {
      session.value = await call('calibration.submit', { id })
      sessions.value = await call('calibration.list', {})
    })
  }

  async function loadLead(): Promise<void> {
    await guarded(async () => {
      lead.value = await call('review.leadStats', { zone: app.zone })
    })
  }

  return {
    reviewer,
    progress,
    sessions,
    session,
    callAt,
    focused,
    currentCall,
    lead,
    error,
    loadReviewer,
    setReviewer,
    loadProgress,
    spread,
    loadSessions,
    createSession,
    openSession,
    answer,
    submit,
    loadLead
  }
})
