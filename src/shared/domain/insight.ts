/** Insight's two per-column charts: a breakdown of the results by a column, and a parameter over time. */
import { z } from 'zod'
import { ResultColumn } from './records'

/** One bar of a breakdown: a text value, or for a numeric column a range [min, max). */
export const BreakdownBar = z.object({
  value: z.string(),
  min: z.number().nullable(),
  max: z.number().nullable(),
  count: z.number().int(),
  /** The last numeric range holds its max too: [min, max] instead of [min, max). */
  closed: z.boolean().optional()
})
export type BreakdownBar = z.infer<typeof BreakdownBar>

/** The query's calls counted per value of one column; `missing`: calls with no value. */
export const Breakdown = z.object({
  column: ResultColumn,
  numeric: z.boolean(),
  total: z.number().int().nonnegative(),
  missing: z.number().int().nonnegative(),
  bars: z.array(BreakdownBar)
})
export type Breakdown = z.infer<typeof Breakdown>

/** What a trend measures per period: the mean of a numeric column, or the share of calls with one value. */
export const TrendMeasure = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('mean') }),
  z.object({ kind: z.literal('share'), value: z.string().max(500) })
])
export type TrendMeasure = z.infer<typeof TrendMeasure>

export const TrendBucket = z.enum(['day', 'week'])
export type TrendBucket = z.infer<typeof TrendBucket>

/**
 * One period of a trend: its first day (YYYY-MM-DD in the zone; weeks start on Monday), the
 * calls with a value of the column in it (`n`), and the measure over them (null when n is 0).
 */
export const TrendPoint = z.object({ period: z.string(), n: z.number().int().nonnegative(), value: z.number().nullable() })
export type TrendPoint = z.infer<typeof TrendPoint>

export const Trend = z.object({
  column: ResultColumn,
  measure: TrendMeasure,
  bucket: TrendBucket,
  points: z.array(TrendPoint)
})
export type Trend = z.infer<typeof Trend>
