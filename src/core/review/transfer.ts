import { stringify } from 'csv-stringify/sync'
import { z } from 'zod'
import { Annotation, Scorecard } from '../../shared/review'
import type { CallCache } from '../cache'
import { CallsightError } from '../errors'
import { neutralizeFormula } from '../export'
import { maskText } from '../pii'

/**
 * Annotations out of one cache file and into another (CLI `annotations export|import`):
 * a back-up, or a hand-over between machines without a team cache. JSON carries the
 * scorecards the scores answered; CSV one row per annotation. The import is import.ts.
 */

export const TransferFormat = z.enum(['json', 'csv'])
export type TransferFormat = z.infer<typeof TransferFormat>

const Stored = Annotation.omit({ callMissing: true })
type Stored = z.infer<typeof Stored>

export const AnnotationsFile = z.object({
  format: z.literal('callsight-annotations'),
  version: z.literal(1),
  exportedAt: z.number().int(),
  scorecards: z.array(Scorecard).default([]),
  annotations: z.array(Stored)
})
export type AnnotationsFile = z.infer<typeof AnnotationsFile>

export const CSV_COLUMNS = [
  'id',
  'callId',
  'author',
  'createdAt',
  'status',
  'statusAt',
  'tags',
  'tagsAt',
  'note',
  'noteAt',
  'scorecardId',
  'scorecardVersion',
  'answers',
  'total',
  'failed',
  'scoreAt',
  'updatedAt',
  'updatedBy'
] as const

/** What leaves the machine: notes and tags through the PII guard again. */
function guarded(a: Annotation): Stored {
  const { callMissing: _missing, ...rest } = a
  return { ...rest, note: maskText(a.note), tags: a.tags.map(maskText) }
}

export function exportAnnotations(cache: CallCache, format: TransferFormat, now: number): { text: string; count: number } {
  const list = [...cache.review.annotations.all()].map(guarded)
  if (format === 'json') {
    const file: AnnotationsFile = {
      format: 'callsight-annotations',
      version: 1,
      exportedAt: now,
      scorecards: cache.review.scorecards.allVersions(),
      annotations: list
    }
    return { text: `${JSON.stringify(file, null, 2)}\n`, count: list.length }
  }
  const rows = list.map((a) => [
    a.id,
    a.callId,
    a.author,
    String(a.createdAt),
    a.status,
    String(a.statusAt),
    JSON.stringify(a.tags),
    String(a.tagsAt),
    a.note,
    String(a.noteAt),
    a.score?.scorecardId ?? '',
    a.score ? String(a.score.version) : '',
    a.score ? JSON.stringify(a.score.answers) : '',
    a.score?.total === null || a.score === null ? '' : String(a.score.total),
    a.score?.failed ? '1' : '0',
    String(a.scoreAt),
    String(a.updatedAt),
    a.updatedBy
  ])
  // Formula triggers are made inert for a spreadsheet; import takes the quote off again.
  const text = stringify([[...CSV_COLUMNS], ...rows.map((r) => r.map(neutralizeFormula))], { bom: true, record_delimiter: 'windows' })
  return { text, count: list.length }
}

/** JSON text, or InvalidInput saying it is not. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (e) {
    throw new CallsightError('InvalidInput', 'The file is not JSON.', { cause: e })
  }
}
