import { CallsightError } from '../../core/errors'
import { ReviewFilter, ReviewStatus } from '../../shared/domain'
import { check, parseBoolFlag, parseList } from '../args'

/** The review filters of `search` and `export` (docs/review.md). */
export const REVIEW_OPTIONS = {
  status: { type: 'string' },
  tag: { type: 'string', multiple: true },
  list: { type: 'string' },
  'has-note': { type: 'string' },
  score: { type: 'string' },
  scorecard: { type: 'string' },
  reviewer: { type: 'string' },
  note: { type: 'string' },
  'service-dropped': { type: 'string' }
} as const

export interface ReviewFlagValues {
  status?: string
  tag?: string[]
  list?: string
  'has-note'?: string
  score?: string
  scorecard?: string
  reviewer?: string
  note?: string
  'service-dropped'?: string
}

function parseScore(raw: string | undefined): { scoreMin: number | null; scoreMax: number | null } {
  if (raw === undefined) return { scoreMin: null, scoreMax: null }
  const m = /^\s*(-?\d+(?:\.\d+)?)?\s*\.\.\s*(-?\d+(?:\.\d+)?)?\s*$/.exec(raw)
  if (!m || (m[1] === undefined && m[2] === undefined))
    throw new CallsightError('InvalidInput', '--score: expected MIN..MAX, e.g. 60..100 or ..50.')
  return { scoreMin: m[1] === undefined ? null : Number(m[1]), scoreMax: m[2] === undefined ? null : Number(m[2]) }
}

/** The review part of the query, or undefined when no review flag is given. */
export function buildReviewFilter(v: ReviewFlagValues): ReviewFilter | undefined {
  const given = Object.keys(REVIEW_OPTIONS).some((k) => v[k as keyof ReviewFlagValues] !== undefined)
  if (!given) return undefined
  return check(
    ReviewFilter,
    {
      statuses: parseList(v.status).map((s) => check(ReviewStatus, s, '--status')),
      tags: v.tag ?? [],
      listId: v.list ?? null,
      hasNote: parseBoolFlag(v['has-note'], '--has-note'),
      ...parseScore(v.score),
      scorecardId: v.scorecard ?? null,
      reviewer: v.reviewer ?? null,
      noteText: v.note ?? '',
      serviceDropped: parseBoolFlag(v['service-dropped'], '--service-dropped')
    },
    'review filters'
  )
}
