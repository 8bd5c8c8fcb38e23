import type { Annotation, AnnotationField, ReviewStatus, Score } from '../../../shared/review'

/** An annotations row as stored (migration 6). */
export interface AnnotationRowDb {
  call_id: string
  id: string
  author: string
  created_at: number
  status: ReviewStatus
  status_at: number
  tags: string
  tags_at: number
  note: string
  note_folded: string
  note_at: number
  scorecard_id: string | null
  scorecard_version: number | null
  answers: string | null
  total: number | null
  failed: number
  score_at: number
  updated_at: number
  updated_by: string
  service_dropped_at: number | null
}

/** The value of one field, as the history keeps it (JSON). */
export type FieldValue = ReviewStatus | string[] | string | Score | null

export function scoreOfRow(r: AnnotationRowDb): Score | null {
  if (r.scorecard_id === null || r.scorecard_version === null) return null
  return {
    scorecardId: r.scorecard_id,
    version: r.scorecard_version,
    answers: JSON.parse(r.answers ?? '{}') as Score['answers'],
    total: r.total,
    failed: r.failed === 1
  }
}

export function toAnnotation(r: AnnotationRowDb, callMissing: boolean): Annotation {
  return {
    id: r.id,
    callId: r.call_id,
    author: r.author,
    status: r.status,
    tags: JSON.parse(r.tags) as string[],
    note: r.note,
    score: scoreOfRow(r),
    createdAt: r.created_at,
    statusAt: r.status_at,
    tagsAt: r.tags_at,
    noteAt: r.note_at,
    scoreAt: r.score_at,
    updatedAt: r.updated_at,
    updatedBy: r.updated_by,
    callMissing,
    serviceDroppedAt: r.service_dropped_at ?? null
  }
}

export function fieldOf(a: Annotation, field: AnnotationField): FieldValue {
  switch (field) {
    case 'status':
      return a.status
    case 'tags':
      return a.tags
    case 'note':
      return a.note
    case 'score':
      return a.score
  }
}

export function fieldAt(a: Annotation, field: AnnotationField): number {
  switch (field) {
    case 'status':
      return a.statusAt
    case 'tags':
      return a.tagsAt
    case 'note':
      return a.noteAt
    case 'score':
      return a.scoreAt
  }
}
