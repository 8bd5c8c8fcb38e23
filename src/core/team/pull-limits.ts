import { CallsightError } from '../errors'

/**
 * The most a pull takes of any one value of the team cache, in UTF-8 bytes, and of a batch.
 * A team cache is a database other people administer: a value larger than any the service
 * could have sent (the client takes at most 1 MB plus 64 KB a record for a page, and 256 KB
 * of unknown fields a record, src/core/client) is never fetched — the pull's SQL sends NULL
 * in its place beside its size — and its call is refused (skipped, and reported), so one
 * hostile row can neither exhaust a workstation's memory nor block a team's pulls.
 * Generous for real data: a real call's title is a line, its summary a few KB.
 */
export const PULL_LIMITS = {
  callDate: 256,
  title: 16 * 1024,
  summary: 1024 * 1024,
  /** The analysis items as JSON: a call's whole analysis. */
  analysis: 4 * 1024 * 1024,
  /** The unknown fields as JSON (the client takes 256 K characters; non-ASCII takes two bytes or more). */
  extra: 1024 * 1024,
  /** A scope's filters, or its coverage, as JSON. */
  scopeJson: 1024 * 1024,
  callTypeDescription: 16 * 1024,
  /**
   * The calls of a batch, all values added up: the batch ends before the call that would pass
   * it (it always takes one). Counted once for the calls numbered in the batch and once for
   * those its memberships carry along, so a batch holds at most twice this.
   */
  batchBytes: 32 * 1024 * 1024
} as const

export type LimitedCallField = 'callDate' | 'title' | 'summary' | 'analysis' | 'extra'

/** The call columns with their caps: column name, limit key. */
export const CALL_CAPS: ReadonlyArray<readonly [column: string, field: LimitedCallField]> = [
  ['call_date', 'callDate'],
  ['title', 'title'],
  ['summary', 'summary'],
  ['analysis', 'analysis'],
  ['extra', 'extra']
]

/** The refusal of a call whose `field` is larger than the pull takes. */
export function oversizedCall(callId: string, field: string, bytes: number, limit: number): CallsightError {
  return new CallsightError(
    'Storage',
    `The team cache's call ${JSON.stringify(callId.slice(0, 200))} was not pulled: its ${field} is ${bytes} bytes, more than the ${limit} a pull takes.`,
    { hint: 'Ask whoever administers the team cache to check that row; the rest of the pull is unaffected.' }
  )
}
