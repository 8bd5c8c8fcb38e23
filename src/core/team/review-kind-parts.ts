import type pg from 'pg'
import type { OutboxEntry, PushOutcome } from '../cache/review/share-store'
import type { ApplyContext, PulledReviewRow } from './review-apply'

/**
 * The record kinds shared through the team cache, one entry each: where a kind lives here
 * and there, its key and fields, how two copies merge, how a queued change is pushed and
 * how a pulled row is applied. The push and the pull loop over this list; another kind
 * (assignments, calibration) is one table in the tenant's schema and one entry here.
 *
 * Every kind's pulled rows share one shape (`PulledReviewRow`): the pull reads all kinds in
 * one query ordered by change number, each value capped in SQL (NULL past its cap, beside
 * its size) as the pull of calls does (pull-limits.ts).
 */
export interface SharedKind {
  /** The outbox's `kind` and the pulled rows'. */
  kind: OutboxEntry['kind']
  pgTable: string
  localTable: string
  key: readonly string[]
  fields: readonly string[]
  /**
   * `field-with-base`: one value per key and field, any analyst writes it, a change based on
   * a value that is no longer the team's is a conflict kept with both. `one-per-author`: a
   * row per author, only its author writes it, never a conflict. `kept-until-resolved`:
   * written once, then only resolved. `lead-writes`: only the lead group writes it (a
   * scorecard version, a list, an assignment, a calibration round); another analyst's
   * change stays on that workstation. `one-per-author-blind`: a row per author, readable by
   * others only as the calibration's blind rule allows (pg-migration-7.ts).
   */
  merge: 'field-with-base' | 'one-per-author' | 'kept-until-resolved' | 'lead-writes' | 'one-per-author-blind'
  /** The team cache's schema version that holds this kind's table (5 when absent). */
  since?: number
  /** Pushes one queued change inside the push's transaction (under the review write lock). */
  push(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome>
  /** This kind's rows numbered after $1, as PulledReviewRow's columns. */
  pullSql(schema: string): string
  apply(ctx: ApplyContext, row: PulledReviewRow): void
}

/** The most a pull takes of a review value (JSON, a note) in UTF-8 bytes: a local save's limits fit well under it. */
export const REVIEW_VALUE_BYTES = 64 * 1024
/** A call id or an author name, in bytes. */
export const REVIEW_NAME_BYTES = 1024

export const capped = (expr: string, as: string, limit = REVIEW_VALUE_BYTES): string =>
  `CASE WHEN octet_length(${expr}) <= ${limit} THEN ${expr} END AS ${as}, coalesce(octet_length(${expr}), 0) AS ${as}_bytes`

/** The pulled columns, in order, from each kind's own expressions. */
export function pulledColumns(
  kind: string,
  cols: { callId: string; a: string; b: string; c: string; author: string; at: string; meta: string }
): string {
  return [
    `'${kind}'::text AS kind`,
    'seq',
    capped(cols.callId, 'call_id', REVIEW_NAME_BYTES),
    capped(cols.a, 'a'),
    capped(cols.b, 'b'),
    capped(cols.c, 'c'),
    capped(cols.author, 'author', REVIEW_NAME_BYTES),
    `${cols.at} AS at`,
    capped(cols.meta, 'meta', REVIEW_NAME_BYTES * 4)
  ].join(', ')
}
