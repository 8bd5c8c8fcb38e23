import type pg from 'pg'
import type { OutboxEntry, PushOutcome } from '../cache/review/share-store'
import { q } from './connection'
import { applyConflict, applyEvaluation, applyField } from './review-apply'
import { pulledColumns, type SharedKind } from './review-kind-parts'
import { TEAM_WORK_KINDS } from './review-kinds-team'
import { TOMBSTONE_KIND } from './review-tombstones'
import { LIST_REMOVAL_KIND } from './review-removals'

export { REVIEW_NAME_BYTES, REVIEW_VALUE_BYTES, type SharedKind } from './review-kind-parts'

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

const REVIEW_KINDS: readonly SharedKind[] = [
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

/** Every kind: the annotations' (above), the lead's work (assignments, calibration rounds), deletions of it and calls removed from lists. */
export const SHARED_KINDS: readonly SharedKind[] = [...REVIEW_KINDS, ...TEAM_WORK_KINDS, TOMBSTONE_KIND, LIST_REMOVAL_KIND]

export const kindOf = (kind: string): SharedKind | undefined => SHARED_KINDS.find((k) => k.kind === kind)
