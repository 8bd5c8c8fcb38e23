import { z } from 'zod'
import { NOTE_MAX, ReviewStatus, Score, Tag } from '../../shared/review'
import type { CallCache } from '../cache'
import type { TeamField } from '../cache/review/share-store'
import { CallsightError } from '../errors'
import { CallId, Name, reasonOf, timeUpTo } from '../review/import-checks'
import { scoreOf } from '../review/scoring'

/**
 * Applying review rows pulled from the team cache to the local cache. The team cache is a
 * database other people administer: every row passes the checks a local save or an import
 * passes (src/core/review/import-checks.ts, the AnnotationPatch limits) or is refused
 * (skipped and reported, the rest applied), so a hostile row can neither bloat nor corrupt a
 * workstation's review data. Values past the pull's byte caps arrive as NULL (review-kinds.ts).
 */
export interface PulledReviewRow {
  kind: string
  seq: number
  call_id: string | null
  call_id_bytes: number
  a: string | null
  a_bytes: number
  b: string | null
  b_bytes: number
  c: string | null
  c_bytes: number
  author: string | null
  author_bytes: number
  at: number
  meta: string | null
  meta_bytes: number
}

export interface ApplyContext {
  cache: CallCache
  /** The role this workstation writes as: its own evaluations come back to its annotations. */
  role: string
  now: number
}

const FieldValues = {
  status: ReviewStatus,
  tags: z.array(Tag).max(50)
} as const

const PulledScore = Score.extend({ scorecardId: z.string().min(1).max(64), version: z.number().int().min(1).max(1_000_000) })

/** A pulled review row refused: named by its change number, kind and call. */
export function refusedRow(row: PulledReviewRow, why: string): CallsightError {
  const call = row.call_id === null ? '' : ` of call ${JSON.stringify(row.call_id.slice(0, 200))}`
  return new CallsightError('Storage', `The team cache's review change ${row.seq} (${row.kind}${call}) was not pulled: ${why}.`, {
    hint: 'Ask whoever administers the team cache to check that row; the rest of the pull is unaffected.'
  })
}

export function need<T>(row: PulledReviewRow, schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value)
  if (!r.success) throw refusedRow(row, `its ${what} ${reasonOf(r.error)}`)
  return r.data
}

export function text(row: PulledReviewRow, col: 'call_id' | 'a' | 'b' | 'c' | 'author' | 'meta', nullable = false): string | null {
  const v = row[col]
  if (v === null && row[`${col}_bytes`] > 0)
    throw refusedRow(
      row,
      `its ${col === 'a' || col === 'b' || col === 'c' ? 'value' : col} is ${row[`${col}_bytes`]} bytes, more than a pull takes`
    )
  if (v === null && !nullable) throw refusedRow(row, `it has no ${col}`)
  return v
}

export function parseJson(row: PulledReviewRow, raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown
  } catch {
    throw refusedRow(row, 'its value is not JSON')
  }
}

/** Checks the common parts of a row: its call id, author and time. */
export function basics(ctx: ApplyContext, row: PulledReviewRow): { callId: string; author: string; at: number } {
  const callId = need(row, CallId, text(row, 'call_id'), 'call id')
  const author = need(row, Name.min(1), text(row, 'author'), 'author')
  const at = need(row, timeUpTo(ctx.now), row.at, 'time')
  return { callId, author, at }
}

/** A team field's value, checked as a save checks it; returned as the JSON the outbox compares. */
function fieldValue(row: PulledReviewRow, field: string, raw: string): { field: TeamField; value: unknown; json: string } {
  if (field !== 'status' && field !== 'tags') throw refusedRow(row, `"${field.slice(0, 40)}" is not a team field`)
  const value = need(row, FieldValues[field] as z.ZodType<unknown>, parseJson(row, raw), field)
  return { field, value, json: JSON.stringify(value) }
}

/**
 * The team's value of a field: remembered as seen (the base of this workstation's next
 * change of it) and taken into the annotation unless a change of it waits here to be pushed
 * (then the push decides: same base, it wins; another, a conflict kept with both).
 */
export function applyField(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId, author, at } = basics(ctx, row)
  const { field, value, json } = fieldValue(row, text(row, 'b')!, text(row, 'a')!)
  ctx.cache.review.share.seen(callId, field, json, author, at)
  if (ctx.cache.review.share.hasPending(callId, field)) return
  ctx.cache.review.annotations.write(callId, { [field]: value }, { author, at, history: false })
}

/**
 * Another reviewer's evaluation is kept beside the annotation (team_evaluations); this
 * role's own, written from another workstation, updates the annotation's note and score
 * when newer (a score computed again from the scorecard version, when known here).
 */
export function applyEvaluation(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId, author, at } = basics(ctx, row)
  const note = need(row, z.string().max(NOTE_MAX), text(row, 'b'), 'note')
  const rawScore = text(row, 'a', true)
  const score = rawScore === null ? null : need(row, PulledScore, parseJson(row, rawScore), 'score')
  if (author !== ctx.role) {
    ctx.cache.review.share.putTeamEvaluation(callId, author, score === null ? null : JSON.stringify(score), note, at)
    return
  }
  const mine = ctx.cache.review.annotations.get(callId)
  const changes: { note?: string; score?: Score | null } = {}
  if (!mine || at > mine.noteAt) changes.note = note
  if (!mine || at > mine.scoreAt) {
    if (score === null) changes.score = null
    else {
      const card = ctx.cache.review.scorecards.get(score.scorecardId, score.version)
      if (card) changes.score = scoreOf(card.id, card.version, card.criteria, score.answers)
    }
  }
  if (Object.keys(changes).length > 0) ctx.cache.review.annotations.write(callId, changes, { author, at, history: false })
}

const ConflictMeta = z.object({
  id: z.string().uuid(),
  field: z.string().max(40),
  theirAuthor: Name.min(1),
  theirAt: z.number().int().min(0),
  resolvedBy: Name.nullable(),
  resolvedAt: z.number().int().min(0).nullable()
})

/** A conflict (or its resolution) any analyst's push recorded: shown on the annotation until resolved. */
export function applyConflict(ctx: ApplyContext, row: PulledReviewRow): void {
  const { callId, author, at } = basics(ctx, row)
  const meta = need(row, ConflictMeta, parseJson(row, text(row, 'meta')!), 'description')
  const theirs = fieldValue(row, meta.field, text(row, 'a')!)
  const mine = fieldValue(row, meta.field, text(row, 'b')!)
  const resolvedRaw = text(row, 'c', true)
  const resolved =
    resolvedRaw !== null && meta.resolvedAt !== null
      ? { value: fieldValue(row, meta.field, resolvedRaw).json, by: meta.resolvedBy ?? '', at: meta.resolvedAt }
      : null
  ctx.cache.review.share.putConflict(
    {
      id: meta.id,
      callId,
      field: theirs.field,
      theirs: theirs.json,
      theirAuthor: meta.theirAuthor,
      theirAt: meta.theirAt,
      mine: mine.json,
      myAuthor: author,
      myAt: at
    },
    resolved
  )
}
