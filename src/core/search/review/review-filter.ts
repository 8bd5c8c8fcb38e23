import type { ReviewFilter } from '../../../shared/domain'
import { foldText } from '../../../shared/text/fold'
import type { SqlPiece } from '../../cache'

/** A query's review conditions as SQL over `calls c`, and where its matches can be read from. */
export interface CompiledReview {
  where: string[]
  params: unknown[]
  /**
   * The ids of calls the annotations could match, driven from the review tables (a list, a
   * tag, or the annotations' own columns): a superset of the matches, so few that taking
   * them and sorting beats walking the date index (choosePlan decides by counting them).
   * Null when no condition needs an annotation (only 'new', say).
   */
  candidates: SqlPiece | null
  /**
   * An index of annotated calls in date order (migration 9) that every match is in: walked
   * newest first, it gives the first page after about limit / (share of its rows that match)
   * rows, each joined to its call by call_id. Null when no such index narrows the query (a
   * list, 'new', only "has no note").
   */
  driver: ReviewDriver | null
  /**
   * The driver is the annotations table and the row's conditions go beyond its index (a score
   * range, a scorecard, a reviewer, a note, the service's mark): few rows may match, and the
   * walk would then read most of the driver. Such a query counts its candidates first
   * (plan.ts, REVIEW_FEW).
   */
  selective: boolean
}

/**
 * A FROM item over alias `d` with columns d.call_at and d.call_id, ordered by them (through
 * the named index) once `where` fixes its leading columns; one row per call.
 */
export interface ReviewDriver {
  from: string
  where: string[]
  params: unknown[]
}

const marks = (n: number): string => Array.from({ length: n }, () => '?').join(',')

/** The words of a note search, folded as notes are (note_folded). */
export const noteWords = (text: string): string[] =>
  foldText(text)
    .split(/\s+/)
    .filter((w) => w !== '')

type EvaluationRow = 'annotation' | 'team'

/**
 * The conditions one evaluation must meet together: this workstation's annotation (its
 * total, scorecard and last writer) or a pulled one of team_evaluations (its score as JSON,
 * its author).
 */
function evaluationConds(f: ReviewFilter): { on: Array<(a: string, of: EvaluationRow) => string>; params: unknown[] } {
  const on: Array<(a: string, of: EvaluationRow) => string> = []
  const params: unknown[] = []
  const total = (a: string, of: EvaluationRow): string => (of === 'annotation' ? `${a}.total` : `json_extract(${a}.score, '$.total')`)
  if (f.scoreMin !== null) {
    on.push((a, of) => `${total(a, of)} >= ?`)
    params.push(f.scoreMin)
  }
  if (f.scoreMax !== null) {
    on.push((a, of) => `${total(a, of)} <= ?`)
    params.push(f.scoreMax)
  }
  if (f.scorecardId !== null) {
    on.push((a, of) => (of === 'annotation' ? `${a}.scorecard_id = ?` : `json_extract(${a}.score, '$.scorecardId') = ?`))
    params.push(f.scorecardId)
  }
  if (f.reviewer !== null) {
    on.push((a, of) => (of === 'annotation' ? `${a}.updated_by = ?` : `${a}.author = ?`))
    params.push(f.reviewer)
  }
  return { on, params }
}

/** Whether the filter's evaluation conditions take the team's pulled evaluations too (SQL answers it then). */
export const usesTeamEvaluations = (f: ReviewFilter | undefined): boolean =>
  f?.team === true && (f.scoreMin !== null || f.scoreMax !== null || f.scorecardId !== null || f.reviewer !== null)

/** Pure. Null when the filter sets nothing. */
export function compileReview(f: ReviewFilter | undefined): CompiledReview | null {
  if (!f) return null
  const where: string[] = []
  const params: unknown[] = []
  // Conditions on the call's annotations row, which must then exist; over alias `a`, so the
  // annotations driver can test them on its own row before joining the call.
  const conds: Array<(a: string) => string> = []
  const condParams: unknown[] = []
  const statuses = [...new Set(f.statuses)]
  if (statuses.length > 0 && statuses.length < 4) {
    if (statuses.includes('new')) {
      // A call never annotated is new too.
      where.push(`coalesce((SELECT r.status FROM annotations r WHERE r.call_id = c.call_id), 'new') IN (${marks(statuses.length)})`)
      params.push(...statuses)
    } else {
      conds.push((a) => `${a}.status IN (${marks(statuses.length)})`)
      condParams.push(...statuses)
    }
  }
  if (f.hasNote === true) conds.push((a) => `${a}.note <> ''`)
  // The evaluation's conditions: on the annotation alone, or (team) met by any one evaluation.
  const evals = evaluationConds(f)
  if (!f.team) {
    conds.push(...evals.on.map((e) => (a: string) => e(a, 'annotation')))
    condParams.push(...evals.params)
  }
  const team = f.team === true && evals.on.length > 0
  const evalsOn = (a: string, of: EvaluationRow): string => evals.on.map((e) => e(a, of)).join(' AND ')
  if (f.serviceDropped === true) conds.push((a) => `${a}.service_dropped_at IS NOT NULL`)
  for (const w of noteWords(f.noteText)) {
    conds.push((a) => `instr(${a}.note_folded, ?) > 0`)
    condParams.push(w)
  }
  const condsOn = (a: string): string => conds.map((c) => c(a)).join(' AND ')
  if (conds.length > 0) {
    where.push(`EXISTS (SELECT 1 FROM annotations r WHERE r.call_id = c.call_id AND ${condsOn('r')})`)
    params.push(...condParams)
  }
  if (f.hasNote === false) where.push("NOT EXISTS (SELECT 1 FROM annotations r WHERE r.call_id = c.call_id AND r.note <> '')")
  if (f.serviceDropped === false)
    where.push('NOT EXISTS (SELECT 1 FROM annotations r WHERE r.call_id = c.call_id AND r.service_dropped_at IS NOT NULL)')
  const tags = [...new Set(f.tags)]
  for (const t of tags) {
    where.push('EXISTS (SELECT 1 FROM annotation_tags t WHERE t.tag = ? AND t.call_id = c.call_id)')
    params.push(t)
  }
  if (f.listId !== null) {
    where.push('EXISTS (SELECT 1 FROM review_list_items li WHERE li.call_id = c.call_id AND li.list_id = ?)')
    params.push(f.listId)
  }
  if (team) {
    where.push(
      `(EXISTS (SELECT 1 FROM annotations r WHERE r.call_id = c.call_id AND ${evalsOn('r', 'annotation')})` +
        ` OR EXISTS (SELECT 1 FROM team_evaluations e WHERE e.call_id = c.call_id AND ${evalsOn('e', 'team')}))`
    )
    params.push(...evals.params, ...evals.params)
  }
  if (where.length === 0) return null

  // The narrowest driver there is: a list, a tag, or the annotations row's conditions.
  let candidates: SqlPiece | null = null
  if (f.listId !== null) {
    candidates = {
      sql: 'SELECT c.id AS id FROM review_list_items li CROSS JOIN calls c ON c.call_id = li.call_id WHERE li.list_id = ?',
      params: [f.listId]
    }
  } else if (tags.length > 0) {
    candidates = {
      sql: 'SELECT c.id AS id FROM annotation_tags t CROSS JOIN calls c ON c.call_id = t.call_id WHERE t.tag = ?',
      params: [tags[0]]
    }
  } else if (conds.length > 0) {
    candidates = {
      sql: `SELECT c.id AS id FROM annotations r CROSS JOIN calls c ON c.call_id = r.call_id WHERE ${condsOn('r')}`,
      params: condParams
    }
  } else if (team) {
    // A call another reviewer scored may have no annotation here: both tables drive.
    candidates = {
      sql:
        `SELECT c.id AS id FROM annotations r CROSS JOIN calls c ON c.call_id = r.call_id WHERE ${evalsOn('r', 'annotation')}` +
        ` UNION SELECT c.id AS id FROM team_evaluations e CROSS JOIN calls c ON c.call_id = e.call_id WHERE ${evalsOn('e', 'team')}`,
      params: [...evals.params, ...evals.params]
    }
  }
  // The narrowest index in date order: a tag's rows (tags are rarer than a status), one
  // status's rows, or every annotated call. An annotations driver tests the row's conditions
  // on its own row, before the call's row is read (a join to calls costs a seek in a table of
  // every call, the row's test a look at the row the index led to).
  let driver: ReviewDriver | null = null
  const own = conds.length > 0 ? { where: [condsOn('d')], params: condParams } : { where: [], params: [] }
  if (f.listId !== null) driver = null
  else if (tags.length > 0)
    driver = { from: 'annotation_tags d INDEXED BY annotation_tags_by_time', where: ['d.tag = ?'], params: [tags[0]] }
  else if (statuses.length === 1 && statuses[0] !== 'new')
    driver = {
      from: 'annotations d INDEXED BY annotations_by_status_time',
      where: ['d.status = ?', ...own.where],
      params: [statuses[0], ...own.params]
    }
  else if (conds.length > 0) driver = { from: 'annotations d INDEXED BY annotations_by_time', ...own }
  const statusOnly = conds.length === 1 && statuses.length > 0 && !statuses.includes('new') && !team
  const selective = driver !== null && tags.length === 0 && conds.length > 0 && !statusOnly
  return { where, params, candidates, driver, selective }
}
