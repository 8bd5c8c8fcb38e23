import type pg from 'pg'
import type { OutboxEntry, PushOutcome } from '../cache/review/share-store'
import { q } from './connection'
import { applyConflict, applyEvaluation, applyField, type ApplyContext, type PulledReviewRow } from './review-apply'

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
   * written once, then only resolved.
   */
  merge: 'field-with-base' | 'one-per-author' | 'kept-until-resolved'
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

const capped = (expr: string, as: string, limit = REVIEW_VALUE_BYTES): string =>
  `CASE WHEN octet_length(${expr}) <= ${limit} THEN ${expr} END AS ${as}, coalesce(octet_length(${expr}), 0) AS ${as}_bytes`

/** The pulled columns, in order, from each kind's own expressions. */
function pulledColumns(
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

async function pushField(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const s = q(schema)
  const cur = await c.query<{ value: string; author: string; changed_at: string }>(
    `SELECT value, author, changed_at FROM ${s}.review_fields WHERE call_id = $1 AND field = $2 FOR UPDATE`,
    [e.callId, e.field]
  )
  const row = cur.rows[0]
  if (!row) {
    await c.query(`INSERT INTO ${s}.review_fields (call_id, field, value, changed_at, change_id) VALUES ($1, $2, $3, $4, $5)`, [
      e.callId,
      e.field,
      e.value,
      e.at,
      e.changeId
    ])
    return { changeId: e.changeId, result: 'applied' }
  }
  if (row.value === e.value) return { changeId: e.changeId, result: 'same' }
  if (row.value === e.base) {
    await c.query(`UPDATE ${s}.review_fields SET value = $3, changed_at = $4, change_id = $5 WHERE call_id = $1 AND field = $2`, [
      e.callId,
      e.field,
      e.value,
      e.at,
      e.changeId
    ])
    return { changeId: e.changeId, result: 'applied' }
  }
  // Someone changed the field since this workstation last saw it, to another value: both kept.
  await c.query(
    `INSERT INTO ${s}.review_conflicts (id, call_id, field, theirs, their_author, their_at, mine, mine_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [e.changeId, e.callId, e.field, row.value, row.author, row.changed_at, e.value, e.at]
  )
  return { changeId: e.changeId, result: 'conflict', theirs: row.value, theirAuthor: row.author, theirAt: Number(row.changed_at) }
}

async function pushEvaluation(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const v = JSON.parse(e.value) as { note: string; score: string | null; createdAt: number }
  const card = v.score === null ? null : (JSON.parse(v.score) as { scorecardId: string; version: number })
  // The author is the default (current_user): the conflict target is this role's own row.
  const r = await c.query(
    `INSERT INTO ${q(schema)}.evaluations (call_id, score, scorecard_id, scorecard_version, note, created_at, changed_at, change_id)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     ON CONFLICT (call_id, author) DO UPDATE SET score = excluded.score, scorecard_id = excluded.scorecard_id,
       scorecard_version = excluded.scorecard_version, note = excluded.note, changed_at = excluded.changed_at, change_id = excluded.change_id
     WHERE evaluations.changed_at <= excluded.changed_at`,
    [e.callId, v.score, card?.scorecardId ?? null, card?.version ?? null, v.note, v.createdAt, e.at, e.changeId]
  )
  return { changeId: e.changeId, result: (r.rowCount ?? 0) > 0 ? 'applied' : 'stale' }
}

async function pushResolution(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const r = await c.query(
    `UPDATE ${q(schema)}.review_conflicts SET resolved_value = $2, resolved_at = $3 WHERE id = $1 AND resolved_at IS NULL`,
    [e.field, e.value, e.at]
  )
  return { changeId: e.changeId, result: (r.rowCount ?? 0) > 0 ? 'applied' : 'stale' }
}

export const SHARED_KINDS: readonly SharedKind[] = [
  {
    kind: 'field',
    pgTable: 'review_fields',
    localTable: 'annotations',
    key: ['call_id', 'field'],
    fields: ['status', 'tags'],
    merge: 'field-with-base',
    push: pushField,
    pullSql: (schema) =>
      `SELECT ${pulledColumns('field', { callId: 'call_id', a: 'value', b: 'field', c: 'NULL::text', author: 'author', at: 'changed_at', meta: 'NULL::text' })} FROM ${q(schema)}.review_fields WHERE seq > $1`,
    apply: applyField
  },
  {
    kind: 'evaluation',
    pgTable: 'evaluations',
    localTable: 'annotations (own) / team_evaluations (others)',
    key: ['call_id', 'author'],
    fields: ['score', 'note'],
    merge: 'one-per-author',
    push: pushEvaluation,
    pullSql: (schema) =>
      `SELECT ${pulledColumns('evaluation', { callId: 'call_id', a: 'score', b: 'note', c: 'NULL::text', author: 'author', at: 'changed_at', meta: 'NULL::text' })} FROM ${q(schema)}.evaluations WHERE seq > $1`,
    apply: applyEvaluation
  },
  {
    kind: 'conflict',
    pgTable: 'review_conflicts',
    localTable: 'review_conflicts',
    key: ['id'],
    fields: ['resolved_value'],
    merge: 'kept-until-resolved',
    push: pushResolution,
    pullSql: (schema) =>
      `SELECT ${pulledColumns('conflict', {
        callId: 'call_id',
        a: 'theirs',
        b: 'mine',
        c: 'resolved_value',
        author: 'author',
        at: 'mine_at',
        meta: `json_build_object('id', id, 'field', field, 'theirAuthor', their_author, 'theirAt', their_at, 'resolvedBy', resolved_by, 'resolvedAt', resolved_at)::text`
      })} FROM ${q(schema)}.review_conflicts WHERE seq > $1`,
    apply: applyConflict
  }
]

export const kindOf = (kind: string): SharedKind | undefined => SHARED_KINDS.find((k) => k.kind === kind)
