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

export const REVIEW_HELP = `  --status LIST         review status: new,in_review,reviewed,follow_up (new: never annotated too)
  --tag TAG             carrying the tag, repeatable (every one)
  --list ID             in the review list
  --has-note B          with a note (true) or without (false)
  --score MIN..MAX      score total within the range (either end may be left out)
  --scorecard ID        scored with the scorecard
  --reviewer NAME       last changed by the reviewer
  --note TEXT           every word in the note (Turkish case and diacritics fold)
  --service-dropped B   annotated calls the service no longer returns (true), or none of them (false)`

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
