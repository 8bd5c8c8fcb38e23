/**
 * The service's limits, as the spec states them (Limits table; get-calls rules 1 and 2),
 * declared once for core and the renderer. src/reference-service keeps its own copy on purpose: it
 * is written from the spec alone and shares no code, so each side checks the other.
 */

/** skip + take may not pass this; beyond it the service silently lowers the page size. */
export const SERVICE_WINDOW = 10_000

/** The largest take without analysis items; a larger one is refused with 400. */
export const MAX_TAKE = 500

/** The largest take with analysis items. */
export const MAX_TAKE_WITH_ANALYSIS = 100

export function maxTake(includeAnalysis: boolean): number {
  return includeAnalysis ? MAX_TAKE_WITH_ANALYSIS : MAX_TAKE
}

/** A tenant's rate limit in the service's default configuration. */
export const DEFAULT_RATE_LIMIT: Readonly<{ requests: number; perSeconds: number }> = { requests: 60, perSeconds: 60 }
