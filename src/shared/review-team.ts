import { z } from 'zod'
import { AgentField, EpochMs, ReviewStatus } from './domain'

export { AgentField } from './domain'
import { Answers, CriterionScale, ListSource } from './review'

/**
 * Team review on the local side: assignments of a list's calls to reviewers, calibration
 * sessions, and the lead's view in Insight (docs/review.md). A reviewer is a name: the
 * analyst's PostgreSQL role on a team account, the reviewer name the app writes annotations
 * as on a local one.
 */

export const ReviewerName = z.string().trim().min(1).max(120)

// ---------------------------------------------------------------------------------------
// Assignments
// ---------------------------------------------------------------------------------------

export const AssignmentItem = z.object({
  listId: z.string(),
  listName: z.string(),
  callId: z.string(),
  /** The call's index in its list. */
  position: z.number().int().nonnegative(),
  reviewer: z.string(),
  status: ReviewStatus,
  total: z.number().nullable(),
  done: z.boolean(),
  assignedAt: EpochMs,
  callMissing: z.boolean()
})
export type AssignmentItem = z.infer<typeof AssignmentItem>

export const MyAssignments = z.object({
  reviewer: z.string(),
  /** Not done first (the next unreviewed is the first), then done; each by list age and position. */
  items: z.array(AssignmentItem),
  assigned: z.number().int().nonnegative(),
  reviewed: z.number().int().nonnegative()
})
export type MyAssignments = z.infer<typeof MyAssignments>

export const ProgressRow = z.object({
  reviewer: z.string(),
  assigned: z.number().int().nonnegative(),
  reviewed: z.number().int().nonnegative()
})
export const AssignmentProgress = z.object({
  byReviewer: z.array(ProgressRow),
  byList: z.array(
    z.object({
      listId: z.string(),
      listName: z.string(),
      size: z.number().int().nonnegative(),
      assigned: z.number().int().nonnegative(),
      reviewed: z.number().int().nonnegative(),
      reviewers: z.array(ProgressRow)
    })
  )
})
export type AssignmentProgress = z.infer<typeof AssignmentProgress>

export const SpreadRequest = z.object({
  listId: z.string().min(1).max(100),
  reviewers: z.array(ReviewerName).min(1).max(200),
  /** Keep the calls already assigned and spread only the rest (counting what each has). */
  onlyUnassigned: z.boolean().default(false)
})

// ---------------------------------------------------------------------------------------
// Calibration
// ---------------------------------------------------------------------------------------

export const CALIBRATION_CALLS_MAX = 200

/** Answers per call: {callId: {criterionId: answer}}. */
export const CallAnswers = z.record(z.string().min(1).max(200), Answers)
export type CallAnswers = z.infer<typeof CallAnswers>

export const CalibrationCreate = z.object({
  name: z.string().trim().min(1).max(200),
  scorecardId: z.string().min(1).max(64),
  /** The newest when absent. */
  version: z.number().int().min(1).optional(),
  calls: ListSource,
  reviewers: z.array(ReviewerName).min(2).max(50)
})
export type CalibrationCreate = z.infer<typeof CalibrationCreate>

export const CalibrationInfo = z.object({
  id: z.string(),
  name: z.string(),
  scorecardId: z.string(),
  scorecardVersion: z.number().int(),
  callIds: z.array(z.string()),
  reviewers: z.array(z.string()),
  createdAt: EpochMs,
  createdBy: z.string(),
  /** The reviewers who have submitted. */
  submitted: z.array(z.string())
})
export type CalibrationInfo = z.infer<typeof CalibrationInfo>

export const AgreementMetric = z.enum(['nominal', 'ordinal', 'interval'])

export const Spread = z.object({ min: z.number(), max: z.number(), sd: z.number(), count: z.number().int() })

export const CalibrationResult = z.object({
  /** Alpha over every (call, criterion), answers as shares of their scale (interval). */
  alpha: z.number().nullable(),
  percent: z.number().nullable(),
  criteria: z.array(
    z.object({
      criterionId: z.string(),
      name: z.string(),
      scale: CriterionScale,
      critical: z.boolean(),
      metric: AgreementMetric,
      alpha: z.number().nullable(),
      percent: z.number().nullable(),
      /** The mean, over calls, of the answers' standard deviation, and the widest range on one call. */
      meanSd: z.number().nullable(),
      widest: z.number().nullable(),
      /** Share of the reviewers' answers equal to the lead's reference; null without one. */
      reference: z.number().nullable()
    })
  ),
  calls: z.array(
    z.object({
      callId: z.string(),
      totals: z.array(z.object({ reviewer: z.string(), total: z.number().nullable(), failed: z.boolean() })),
      referenceTotal: z.number().nullable(),
      spread: Spread.nullable(),
      percent: z.number().nullable()
    })
  ),
  reviewers: z.array(
    z.object({ reviewer: z.string(), answered: z.number().int(), reference: z.number().nullable(), submittedAt: EpochMs.nullable() })
  )
})
export type CalibrationResult = z.infer<typeof CalibrationResult>

/**
 * A session as one viewer may see it. Blind: a reviewer of the session who has not submitted
 * sees only their own answers (`others` and `reference` empty, `result` null).
 */
export const CalibrationView = z.object({
  session: CalibrationInfo,
  viewer: z.string(),
  /** The viewer is one of the session's reviewers. */
  isReviewer: z.boolean(),
  submitted: z.boolean(),
  blind: z.boolean(),
  mine: CallAnswers,
  others: z.array(z.object({ reviewer: z.string(), answers: CallAnswers })),
  reference: CallAnswers,
  result: CalibrationResult.nullable()
})
export type CalibrationView = z.infer<typeof CalibrationView>

// ---------------------------------------------------------------------------------------
// The lead's view
// ---------------------------------------------------------------------------------------

/** Extra fields tried, in order, when no agent field is chosen. */
export const AGENT_FIELD_DEFAULTS = ['agent', 'agentName', 'agent_name'] as const

export const ScoreGroup = z.object({
  name: z.string(),
  count: z.number().int(),
  mean: z.number(),
  /** Scored calls per tenth of 0–100. */
  buckets: z.array(z.number().int())
})
export type ScoreGroup = z.infer<typeof ScoreGroup>

export const LeadStats = z.object({
  progress: AssignmentProgress,
  /** The agent field used (the setting, or the default found in the records); null: none found. */
  agentField: AgentField.nullable(),
  perReviewer: z.array(ScoreGroup),
  perAgent: z.array(ScoreGroup),
  failedCritical: z.array(z.object({ scorecardId: z.string(), criterionId: z.string(), name: z.string(), count: z.number().int() })),
  /** Week starting Monday (ISO date, in the zone asked for): mean total, scored and failed calls. */
  weeks: z.array(z.object({ week: z.string(), mean: z.number(), count: z.number().int(), failed: z.number().int() }))
})
export type LeadStats = z.infer<typeof LeadStats>
