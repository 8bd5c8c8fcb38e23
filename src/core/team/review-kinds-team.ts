import type pg from 'pg'
import { z } from 'zod'
import { Answers, Criterion } from '../../shared/review'
import type { OutboxEntry, PushOutcome } from '../cache/review/share-store'
import { CallId, Name } from '../review/import-checks'
import { q } from './connection'
import { LIST_CALL } from './pg-migration-10'
import { schemaVersion } from './pg-migrations'
import { basics, need, parseJson, refusedRow, text, type ApplyContext, type PulledReviewRow } from './review-apply'
import { pulledColumns, type SharedKind } from './review-kind-parts'
import { done, pushStep } from './push-step'

/**
 * The lead's and the reviewers' shared work beside the annotations: scorecard versions,
 * review lists with their assignments, calibration rounds, their answers and submissions
 * (tables of schema versions 5 and 7). Who may write what is PostgreSQL's to say (grants and
 * row-level security); a change this role may not make (an analyst's own list, say) is not
 * an error of the push: it stays on this workstation as local work, the rest goes on.
 */

/** What each kind's outbox value holds (written by review/team-share.ts). */
export const ScorecardValue = z.object({
  name: z.string().min(1).max(200),
  criteria: z.array(Criterion).min(1).max(100),
  createdAt: z.number()
})
export const ListValue = z.object({
  name: z.string().min(1).max(200),
  source: z.string().max(60_000),
  createdAt: z.number(),
  items: z.array(z.tuple([z.number().int().min(0), CallId])),
  /** The calls this change appended (a lead adding them now): they win over an older removal of them. */
  added: z.array(CallId).optional()
})
export const AssignmentValue = z.object({ reviewer: Name.min(1).nullable() })
export const CalibrationValue = z.object({
  name: z.string().min(1).max(200),
  scorecardId: z.string().min(1).max(64),
  version: z.number().int().min(1),
  callIds: z.array(CallId).min(1).max(200),
  reviewers: z.array(Name.min(1)).min(2).max(100),
  createdAt: z.number()
})

async function pushScorecard(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const v = ScorecardValue.parse(JSON.parse(e.value))
  return pushStep(c, e, 'stale', async () =>
    done(
      e,
      await c.query(
        `INSERT INTO ${q(schema)}.team_scorecards (id, version, name, criteria, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`,
        [e.callId, Number(e.field), v.name, JSON.stringify(v.criteria), v.createdAt]
      )
    )
  )
}

async function pushList(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const v = ListValue.parse(JSON.parse(e.value))
  const s = q(schema)
  return pushStep(c, e, 'stale', async () => {
    const head = await c.query(
      `INSERT INTO ${s}.team_review_lists (id, name, source, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
      [e.callId, v.name, v.source, v.createdAt]
    )
    // Calls added again after a removal (schema 10): the removal goes when this addition is the later one;
    // the other calls the change carries are as the workstation last saw them, and a removal keeps them out.
    if (v.added && v.added.length > 0 && (await schemaVersion(c, schema)) >= 10)
      await c.query(`DELETE FROM ${s}.review_tombstones WHERE kind = $1 AND id = $2 AND call_id = ANY($3::text[]) AND deleted_at < $4`, [
        LIST_CALL,
        e.callId,
        v.added,
        e.at
      ])
    const items = await c.query(
      `INSERT INTO ${s}.team_review_list_items (list_id, position, call_id)
       SELECT $1, p, id FROM unnest($2::integer[], $3::text[]) AS t (p, id) ON CONFLICT DO NOTHING`,
      [e.callId, v.items.map((i) => i[0]), v.items.map((i) => i[1])]
    )
    return { changeId: e.changeId, result: (head.rowCount ?? 0) + (items.rowCount ?? 0) > 0 ? 'applied' : 'same' }
  })
}

async function pushAssignment(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const v = AssignmentValue.parse(JSON.parse(e.value))
  return pushStep(c, e, 'stale', async () => {
    const r = await c.query(
      `UPDATE ${q(schema)}.team_review_list_items SET assignee = $3, assigned_at = $4 WHERE list_id = $1 AND call_id = $2`,
      [e.field, e.callId, v.reviewer, e.at]
    )
    return { changeId: e.changeId, result: (r.rowCount ?? 0) > 0 ? 'applied' : 'stale' }
  })
}

async function pushCalibration(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const v = CalibrationValue.parse(JSON.parse(e.value))
  return pushStep(c, e, 'stale', async () =>
    done(
      e,
      await c.query(
        `INSERT INTO ${q(schema)}.team_calibrations (id, name, scorecard_id, scorecard_version, call_ids, reviewers, created_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7) ON CONFLICT DO NOTHING`,
        [e.callId, v.name, v.scorecardId, v.version, JSON.stringify(v.callIds), JSON.stringify(v.reviewers), v.createdAt]
      )
    )
  )
}

async function pushAnswers(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  const answers = Answers.parse(JSON.parse(e.value))
  return pushStep(c, e, 'stale', async () => {
    const r = await c.query(
      `INSERT INTO ${q(schema)}.calibration_answers (session_id, call_id, answers, changed_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (session_id, author, call_id) DO UPDATE SET answers = excluded.answers, changed_at = excluded.changed_at
       WHERE calibration_answers.changed_at <= excluded.changed_at`,
      [e.field, e.callId, JSON.stringify(answers), e.at]
    )
    return { changeId: e.changeId, result: (r.rowCount ?? 0) > 0 ? 'applied' : 'stale' }
  })
}

async function pushSubmission(c: pg.ClientBase, schema: string, e: OutboxEntry): Promise<PushOutcome> {
  return pushStep(c, e, 'stale', async () =>
    done(
      e,
      await c.query(`INSERT INTO ${q(schema)}.calibration_submissions (session_id, submitted_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [
        e.callId,
        e.at
      ])
    )
  )
}

const Uuid = z.string().uuid()

function applyScorecard(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId: id, author, at } = basics(ctx, row)
  const version = need(row, z.coerce.number().int().min(1).max(1_000_000), text(row, 'c'), 'version')
  const name = need(row, z.string().min(1).max(200), text(row, 'b'), 'name')
  const criteria = need(row, z.array(Criterion).min(1).max(100), parseJson(row, text(row, 'a')!), 'criteria')
  ctx.cache.review.scorecards.insertVersion({ id, version, name, criteria, createdAt: at, author })
}

function applyList(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId: id, author, at } = basics(ctx, row)
  need(row, Uuid, id, 'id')
  const name = need(row, z.string().min(1).max(200), text(row, 'a'), 'name')
  const source = need(row, z.string().max(60_000), text(row, 'b'), 'source')
  parseJson(row, source)
  if (ctx.cache.review.share.deletionPending(id)) return
  ctx.cache.review.reviewLists.putShared(id, name, source, author, at)
}

function applyAssignment(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId, author, at } = basics(ctx, row)
  const listId = need(row, Uuid, text(row, 'b'), 'list')
  const position = need(row, z.coerce.number().int().min(0).max(10_000_000), text(row, 'c'), 'position')
  const reviewer = need(row, Name.min(1).nullable(), text(row, 'a', true), 'reviewer')
  if (ctx.cache.review.share.deletionPending(listId) || ctx.cache.review.share.removalPending(listId, callId)) return
  if (!ctx.cache.review.reviewLists.exists(listId)) throw refusedRow(row, 'its list is not known here')
  ctx.cache.review.reviewLists.putItem(listId, position, callId)
  ctx.cache.review.assignments.setShared(listId, callId, reviewer, author, at)
}

const SessionMeta = z.object({ name: z.string().min(1).max(200), scorecardId: z.string().min(1).max(64), version: z.number().int().min(1) })

function applyCalibration(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId: id, author, at } = basics(ctx, row)
  need(row, Uuid, id, 'id')
  const callIds = need(row, z.array(CallId).min(1).max(200), parseJson(row, text(row, 'a')!), 'calls')
  const reviewers = need(row, z.array(Name.min(1)).min(2).max(100), parseJson(row, text(row, 'b')!), 'reviewers')
  const meta = need(row, SessionMeta, parseJson(row, text(row, 'c')!), 'description')
  if (ctx.cache.review.share.deletionPending(id)) return
  ctx.cache.review.calibration.put(
    { id, name: meta.name, scorecardId: meta.scorecardId, scorecardVersion: meta.version, callIds, reviewers },
    author,
    at
  )
}

/** A reviewer's answers of one call; an answer by someone who is not a reviewer of the round is the reference. */
function applyAnswers(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId, author, at } = basics(ctx, row)
  const sessionId = need(row, Uuid, text(row, 'b'), 'round')
  const answers = need(row, Answers, parseJson(row, text(row, 'a')!), 'answers')
  if (ctx.cache.review.share.deletionPending(sessionId)) return
  if (!ctx.cache.review.calibration.exists(sessionId)) throw refusedRow(row, 'its calibration round is not known here')
  const session = ctx.cache.review.calibration.info(sessionId)
  if (!session.callIds.includes(callId)) throw refusedRow(row, 'its call is not in the round')
  if (session.reviewers.includes(author)) ctx.cache.review.calibration.replaceAnswers(sessionId, author, callId, answers, at)
  else ctx.cache.review.calibration.replaceReference(sessionId, callId, answers)
}

function applySubmission(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId: sessionId, author, at } = basics(ctx, row)
  need(row, Uuid, sessionId, 'round')
  if (ctx.cache.review.share.deletionPending(sessionId)) return
  if (!ctx.cache.review.calibration.exists(sessionId)) throw refusedRow(row, 'its calibration round is not known here')
  ctx.cache.review.calibration.submit(sessionId, author, at)
}

const none = 'NULL::text'

export const TEAM_WORK_KINDS: readonly SharedKind[] = [
  {
    kind: 'scorecard',
    pgTable: 'team_scorecards',
    localTable: 'scorecards',
    key: ['id', 'version'],
    fields: ['name', 'criteria'],
    merge: 'lead-writes',
    since: 7,
    push: pushScorecard,
    pullSql: (schema) =>
      `SELECT ${pulledColumns('scorecard', { callId: 'id', a: 'criteria', b: 'name', c: 'version::text', author: 'author', at: 'created_at', meta: none })} FROM ${q(schema)}.team_scorecards WHERE seq > $1`,
    apply: applyScorecard
  },
  {
    kind: 'list',
    pgTable: 'team_review_lists',
    localTable: 'review_lists',
    key: ['id'],
    fields: ['name', 'source'],
    merge: 'lead-writes',
    since: 7,
    push: pushList,
    pullSql: (schema) =>
      `SELECT ${pulledColumns('list', { callId: 'id::text', a: 'name', b: 'source', c: none, author: 'author', at: 'created_at', meta: none })} FROM ${q(schema)}.team_review_lists WHERE seq > $1`,
    apply: applyList
  },
  {
    kind: 'assignment',
    pgTable: 'team_review_list_items',
    localTable: 'review_list_items / review_assignments',
    key: ['list_id', 'call_id'],
    fields: ['assignee'],
    merge: 'lead-writes',
    since: 7,
    push: pushAssignment,
    pullSql: (schema) =>
      `SELECT ${pulledColumns('assignment', { callId: 'call_id', a: 'assignee', b: 'list_id::text', c: 'position::text', author: 'author', at: 'assigned_at', meta: none })} FROM ${q(schema)}.team_review_list_items WHERE seq > $1`,
    apply: applyAssignment
  },
  {
    kind: 'calibration',
    pgTable: 'team_calibrations',
    localTable: 'calibration_sessions',
    key: ['id'],
    fields: ['call_ids', 'reviewers'],
    merge: 'lead-writes',
    since: 7,
    push: pushCalibration,
    pullSql: (schema) =>
      `SELECT ${pulledColumns('calibration', {
        callId: 'id::text',
        a: 'call_ids',
        b: 'reviewers::text',
        c: `json_build_object('name', name, 'scorecardId', scorecard_id, 'version', scorecard_version)::text`,
        author: 'author',
        at: 'created_at',
        meta: none
      })} FROM ${q(schema)}.team_calibrations WHERE seq > $1`,
    apply: applyCalibration
  },
  {
    kind: 'calibration-answer',
    pgTable: 'calibration_answers',
    localTable: 'calibration_answers / calibration_sessions.reference',
    key: ['session_id', 'author', 'call_id'],
    fields: ['answers'],
    merge: 'one-per-author-blind',
    since: 7,
    push: pushAnswers,
    pullSql: (schema) =>
      `SELECT ${pulledColumns('calibration-answer', { callId: 'call_id', a: 'answers', b: 'session_id::text', c: none, author: 'author', at: 'changed_at', meta: none })} FROM ${q(schema)}.calibration_answers WHERE seq > $1`,
    apply: applyAnswers
  },
  {
    kind: 'calibration-submit',
    pgTable: 'calibration_submissions',
    localTable: 'calibration_submissions',
    key: ['session_id', 'author'],
    fields: ['submitted_at'],
    merge: 'one-per-author',
    since: 7,
    push: pushSubmission,
    pullSql: (schema) =>
      `SELECT ${pulledColumns('calibration-submit', { callId: 'session_id::text', a: none, b: none, c: none, author: 'author', at: 'submitted_at', meta: none })} FROM ${q(schema)}.calibration_submissions WHERE seq > $1`,
    apply: applySubmission
  }
]
