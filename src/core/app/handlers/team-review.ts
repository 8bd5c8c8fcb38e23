import {
  answerCalibration,
  calibrationView,
  createCalibration,
  deleteCalibration,
  setCalibrationReference,
  submitCalibration
} from '../../review/calibration'
import { assignCalls, leadStats, myAssignments, spreadList, unassignCalls } from '../../review/lead-view'
import type { AppState } from '../app-state'
import type { Handlers } from '../host-ports'
import { reviewContext, reviewerName } from './review'

export type TeamReviewHandlers = Pick<
  Handlers,
  | 'review.reviewer'
  | 'review.leadStats'
  | 'assignments.assign'
  | 'assignments.spread'
  | 'assignments.unassign'
  | 'assignments.ofList'
  | 'assignments.mine'
  | 'assignments.progress'
  | 'calibration.list'
  | 'calibration.create'
  | 'calibration.get'
  | 'calibration.answer'
  | 'calibration.submit'
  | 'calibration.reference'
  | 'calibration.delete'
>

/**
 * Team review on the local side (docs/review.md): assignments of review lists to reviewers,
 * calibration sessions (blind until a reviewer submits), and Insight's lead view. Like the
 * rest of review, offline work in the active account's cache, as the current reviewer.
 */
export function teamReviewHandlers(state: AppState): TeamReviewHandlers {
  const ctx = () => reviewContext(state)
  const cache = () => state.requireRuntime().cache
  /** A change of shared team work: the live sync pushes it shortly. */
  const shared = <T>(value: T): T => {
    state.reviewSaved()
    return value
  }
  return {
    'review.reviewer': async () => ({ reviewer: reviewerName(state) }),
    'review.leadStats': async ({ zone }) => leadStats(cache(), zone ?? state.displayZone(), state.settings().review.agentField),

    'assignments.assign': async ({ listId, callIds, reviewer }) => shared({ changed: assignCalls(ctx(), listId, callIds, reviewer) }),
    'assignments.spread': async ({ listId, reviewers, onlyUnassigned }) => shared(spreadList(ctx(), listId, reviewers, onlyUnassigned)),
    'assignments.unassign': async ({ listId, callIds }) => shared({ changed: unassignCalls(ctx(), listId, callIds) }),
    'assignments.ofList': async ({ listId }) => cache().review.assignments.ofList(listId),
    'assignments.mine': async () => myAssignments(cache(), reviewerName(state)),
    'assignments.progress': async () => cache().review.assignments.progress(),

    'calibration.list': async () => (state.runtime ? state.runtime.cache.review.calibration.list() : []),
    'calibration.create': async (req) => shared(createCalibration(ctx(), req)),
    'calibration.get': async ({ id }) => calibrationView(cache(), id, reviewerName(state)),
    'calibration.answer': async ({ id, callId, answers }) => shared(answerCalibration(ctx(), id, callId, answers)),
    'calibration.submit': async ({ id }) => shared(submitCalibration(ctx(), id)),
    'calibration.reference': async ({ id, callId, answers }) => shared(setCalibrationReference(ctx(), id, callId, answers)),
    'calibration.delete': async ({ id }) => {
      deleteCalibration(ctx(), id)
      return shared({ ok: true as const })
    }
  }
}
