/** Call records as cached and as listed. */
import { z } from 'zod'
import { EpochMs } from './time'

export const AnalysisItem = z.object({
  key: z.string(),
  friendlyName: z.string(),
  value: z.string()
})
export type AnalysisItem = z.infer<typeof AnalysisItem>

/** A call as cached: what the service sent, normalized, with unknown fields kept. */
export const CallRecord = z.object({
  callId: z.string().min(1),
  /** The call's instant, UTC epoch ms. */
  callAt: EpochMs,
  /** callDate exactly as the service served it. */
  callDate: z.string(),
  title: z.string(),
  summary: z.string(),
  analysis: z.array(AnalysisItem),
  /** Fields the app does not know, verbatim. */
  extra: z.record(z.string(), z.unknown()),
  firstSeenAt: EpochMs.optional(),
  lastChangedAt: EpochMs.optional()
})
export type CallRecord = z.infer<typeof CallRecord>

/** A call's review status (docs/review.md). */
export const REVIEW_STATUSES = ['new', 'in_review', 'reviewed', 'follow_up'] as const
export const ReviewStatus = z.enum(REVIEW_STATUSES)
export type ReviewStatus = z.infer<typeof ReviewStatus>

/** One row of a result table: light enough to page 100 at a time over IPC. */
export const CallRow = z.object({
  callId: z.string(),
  callAt: EpochMs,
  callDate: z.string(),
  title: z.string(),
  /** The start of the summary, at most SUMMARY_PREVIEW_CHARS characters. */
  summaryPreview: z.string(),
  analysisCount: z.number().int().nonnegative(),
  /** The call's review annotation, when it has one (docs/review.md). */
  review: z.object({ status: ReviewStatus, tags: z.array(z.string()), total: z.number().nullable() }).optional(),
  /** Names of the analysis keys whose items the query's terms found ("matched in"); absent when none. */
  matchedIn: z.array(z.string().max(300)).max(50).optional()
})
export type CallRow = z.infer<typeof CallRow>
export const SUMMARY_PREVIEW_CHARS = 240

/**
 * A column of the results list besides the fixed ones: the call type (from the single-type
 * scopes that returned the call), a field the service sends that the contract does not name
 * (`extra:agentName`, `extra:durationSeconds`), an analysis key (`analysis:<key>`), or the call's
 * review annotation (`review:status`, `review:tags`, `review:score`; docs/review.md).
 */
export const ResultColumn = z
  .string()
  .max(210)
  .regex(/^(callType|extra:[A-Za-z0-9_]{1,100}|analysis:.{1,200}|review:(status|tags|score))$/s, 'Not a known column')
export type ResultColumn = z.infer<typeof ResultColumn>

/** Sorting the results by a column: numbers numerically, text in Turkish collation; calls without a value last. */
export const ColumnSort = z.object({ column: ResultColumn, dir: z.enum(['asc', 'desc']) })
export type ColumnSort = z.infer<typeof ColumnSort>

/** A chosen column's value for one row: text, a number, or nothing. */
export const CellValue = z.union([z.string(), z.number(), z.null()])
export type CellValue = z.infer<typeof CellValue>

/** One page's rows with the chosen columns' values, by callId then column. */
export const RowCells = z.record(z.string(), z.record(z.string(), CellValue))
export type RowCells = z.infer<typeof RowCells>

/** A column the chooser can offer, with how it sorts. */
export const ColumnInfo = z.object({ column: ResultColumn, label: z.string(), numeric: z.boolean() })
export type ColumnInfo = z.infer<typeof ColumnInfo>

export const CallType = z.object({ value: z.string(), description: z.string() })
export type CallType = z.infer<typeof CallType>
