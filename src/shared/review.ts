import { z } from 'zod'
import { EpochMs, IanaZone, ReviewStatus, SearchQuery } from './domain'

export { REVIEW_STATUSES, ReviewFilter, ReviewStatus } from './domain'

/**
 * Review: annotations on calls, scorecards and review lists. Annotations are the
 * user's own work: they live beside the cached calls, keyed by the service's callId, and
 * nothing the sync or "clear cache" does deletes them.
 */

/** Statuses that count as done in a list's progress ("34 of 120 reviewed"). */
export const DONE_STATUSES: readonly ReviewStatus[] = ['reviewed', 'follow_up']

export const Tag = z.string().trim().min(1).max(60)
export const NOTE_MAX = 10_000

// ---------------------------------------------------------------------------------------
// Scorecards
// ---------------------------------------------------------------------------------------

export const CriterionScale = z.enum(['yes_no', '1_5', '0_10'])
export type CriterionScale = z.infer<typeof CriterionScale>

export const Criterion = z.object({
  /** Stable within a scorecard across versions, so answers can be compared. */
  id: z.string().min(1).max(64),
  name: z.string().trim().min(1).max(200),
  weight: z.number().finite().min(0).max(1000).default(1),
  scale: CriterionScale,
  /** Failing it fails the whole call: the total becomes 0. */
  critical: z.boolean().default(false)
})
export type Criterion = z.infer<typeof Criterion>

/** A scorecard as defined in Settings, imported or exported (JSON). */
export const ScorecardDefinition = z.object({
  name: z.string().trim().min(1).max(200),
  criteria: z.array(Criterion).min(1).max(100)
})
export type ScorecardDefinition = z.infer<typeof ScorecardDefinition>

export const Scorecard = ScorecardDefinition.extend({
  id: z.string().min(1).max(64),
  version: z.number().int().min(1),
  createdAt: EpochMs,
  author: z.string()
})
export type Scorecard = z.infer<typeof Scorecard>

/** The JSON file of a scorecard export/import: one or more definitions. */
export const ScorecardFile = z.object({
  format: z.literal('callsight-scorecards'),
  version: z.literal(1),
  scorecards: z.array(ScorecardDefinition.extend({ id: z.string().min(1).max(64).optional() })).max(200)
})
export type ScorecardFile = z.infer<typeof ScorecardFile>

/** An answer: yes/no as 1/0, 1–5, or 0–10; null = not answered. */
export const Answers = z.record(z.string().min(1).max(64), z.number().int().min(0).max(10).nullable())
export type Answers = z.infer<typeof Answers>

export const ScoreInput = z.object({
  scorecardId: z.string().min(1).max(64),
  /** The version answered; the newest when absent. */
  version: z.number().int().min(1).optional(),
  answers: Answers
})

export const Score = z.object({
  scorecardId: z.string(),
  version: z.number().int(),
  answers: Answers,
  /** 0–100 over the answered criteria, weighted; 0 when a critical criterion failed. */
  total: z.number().nullable(),
  failed: z.boolean()
})
export type Score = z.infer<typeof Score>

// ---------------------------------------------------------------------------------------
// Annotations
// ---------------------------------------------------------------------------------------

export const Annotation = z.object({
  /** Stable id (UUID) for sharing later through a team cache. */
  id: z.string(),
  callId: z.string(),
  author: z.string(),
  status: ReviewStatus,
  tags: z.array(z.string()),
  note: z.string(),
  score: Score.nullable(),
  createdAt: EpochMs,
  /** Per field, for last-writer-wins merges. */
  statusAt: EpochMs,
  tagsAt: EpochMs,
  noteAt: EpochMs,
  scoreAt: EpochMs,
  updatedAt: EpochMs,
  updatedBy: z.string(),
  /** The call is no longer in the cache (the service stopped returning it, or the cache was cleared). */
  callMissing: z.boolean(),
  /** When a sync over the call's window found that the service no longer returns it; null while it does. */
  serviceDroppedAt: EpochMs.nullable().default(null),
  /** Team fields two people changed since they last saw them (team cache): kept until a person resolves them. */
  conflicts: z.array(z.lazy(() => ReviewConflict)).optional()
})
export type Annotation = z.infer<typeof Annotation>

/**
 * A true conflict of a team field (status or tags): the team's value when this change
 * reached the team cache, and the change that found it there instead of the value its
 * author had last seen. Values as JSON.
 */
export const ReviewConflict = z.object({
  id: z.string(),
  callId: z.string(),
  field: z.enum(['status', 'tags']),
  theirs: z.string(),
  theirAuthor: z.string(),
  theirAt: EpochMs,
  mine: z.string(),
  myAuthor: z.string(),
  myAt: EpochMs
})
export type ReviewConflict = z.infer<typeof ReviewConflict>

export const AnnotationPatch = z
  .object({
    callId: z.string().min(1).max(200),
    status: ReviewStatus.optional(),
    tags: z.array(Tag).max(50).optional(),
    note: z.string().max(NOTE_MAX).optional(),
    /** null removes the score. */
    score: ScoreInput.nullable().optional()
  })
  .strict()
export type AnnotationPatch = z.infer<typeof AnnotationPatch>

export const AnnotationField = z.enum(['status', 'tags', 'note', 'score'])
export type AnnotationField = z.infer<typeof AnnotationField>

// ---------------------------------------------------------------------------------------
// Review lists
// ---------------------------------------------------------------------------------------

export const ReviewListInfo = z.object({
  id: z.string(),
  name: z.string(),
  createdAt: EpochMs,
  author: z.string(),
  size: z.number().int().nonnegative(),
  reviewed: z.number().int().nonnegative()
})
export type ReviewListInfo = z.infer<typeof ReviewListInfo>

/** QA sampling: a share of the matches, or N random calls per day (in a zone), seeded. */
export const Sampling = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('percent'), percent: z.number().gt(0).max(100), seed: z.number().int().default(1) }),
  z.object({
    kind: z.literal('perDay'),
    perDay: z.number().int().min(1).max(10_000),
    zone: IanaZone.optional(),
    seed: z.number().int().default(1)
  })
])
export type Sampling = z.infer<typeof Sampling>

/** Where a list's calls come from. */
export const ListSource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ids'), ids: z.array(z.string().min(1).max(200)).max(100_000) }),
  z.object({ kind: z.literal('query'), query: SearchQuery, sample: Sampling.nullable().default(null) })
])
export type ListSource = z.infer<typeof ListSource>

/** The most calls one list holds. */
export const LIST_MAX = 100_000

export const ReviewListItem = z.object({
  callId: z.string(),
  position: z.number().int().nonnegative(),
  status: ReviewStatus,
  total: z.number().nullable(),
  callMissing: z.boolean(),
  /**
   * The call's title and time as the cache holds them (null when the call is not in the
   * cache), so a list of the list's calls needs no read per call.
   */
  title: z.string().nullable().optional(),
  callAt: EpochMs.nullable().optional()
})
export type ReviewListItem = z.infer<typeof ReviewListItem>

// ---------------------------------------------------------------------------------------
// Transfer (CLI annotations export|import)
// ---------------------------------------------------------------------------------------

export const ImportReport = z.object({
  added: z.number().int(),
  updated: z.number().int(),
  unchanged: z.number().int(),
  /** Fields where both sides had changed: the later write was kept. */
  conflicts: z.array(z.object({ callId: z.string(), field: AnnotationField, kept: z.enum(['local', 'incoming']) })),
  /**
   * What of the file was not imported, by the line its entry starts on, and why: a whole
   * entry, or only its score (its other fields were imported).
   */
  refused: z.array(
    z.object({ line: z.number().int(), callId: z.string().nullable(), part: z.enum(['entry', 'score']), reason: z.string() })
  )
})
export type ImportReport = z.infer<typeof ImportReport>

/** Insight's review charts. */
export const ReviewStats = z.object({
  lists: z.array(ReviewListInfo),
  /** Scored calls per tenth of the 0–100 total ([0,10) … [90,100]). */
  scoreBuckets: z.array(z.object({ from: z.number(), to: z.number(), count: z.number().int() })),
  /** Mean total per day of the call (in the zone asked for), for scored calls the cache holds. */
  scoreByDay: z.array(z.object({ day: z.string(), mean: z.number(), count: z.number().int() })),
  tags: z.array(z.object({ tag: z.string(), count: z.number().int() })),
  statuses: z.array(z.object({ status: ReviewStatus, count: z.number().int() }))
})
export type ReviewStats = z.infer<typeof ReviewStats>
