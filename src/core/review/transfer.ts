import { parse } from 'csv-parse/sync'
import { stringify } from 'csv-stringify/sync'
import { z } from 'zod'
import { Annotation, AnnotationField, Answers, ReviewStatus, Scorecard, type ImportReport, type Score } from '../../shared/review'
import type { CallCache } from '../cache'
import { fieldAt, fieldOf } from '../cache/review/annotation-rows'
import type { FieldChanges, WriteOptions } from '../cache/review/annotation-store'
import { CallsightError } from '../errors'
import { neutralizeFormula } from '../export'
import { maskText } from '../pii'

/**
 * Annotations out of one cache file and into another (CLI `annotations export|import`):
 * a back-up, or a hand-over between machines without a team cache. JSON carries the
 * scorecards the scores answered; CSV one row per annotation. Import merges field by field,
 * last writer wins.
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

const CSV_COLUMNS = [
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

const FIELDS: readonly AnnotationField[] = AnnotationField.options

/** What leaves the machine: notes and tags through the PII guard again. */
function guarded(a: Annotation): Stored {
  const { callMissing: _missing, ...rest } = a
  return { ...rest, note: maskText(a.note), tags: a.tags.map(maskText) }
}

export function exportAnnotations(cache: CallCache, format: TransferFormat, now: number): { text: string; count: number } {
  const list = [...cache.annotations.all()].map(guarded)
  if (format === 'json') {
    const file: AnnotationsFile = {
      format: 'callsight-annotations',
      version: 1,
      exportedAt: now,
      scorecards: cache.scorecards.allVersions(),
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

/** The inverse of neutralizeFormula for a cell this module wrote. */
const unneutralize = (t: string): string =>
  t.replace(/^'(?=[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20])/, '').replace(/(\r\n|\r|\n)'(?=[=+\-@\t\uFF1D\uFF0B\uFF0D\uFF20])/g, '$1')

const int = z.coerce.number().int()

function fromCsv(text: string): { annotations: Stored[]; scorecards: Scorecard[] } {
  let records: Array<Record<string, string>>
  try {
    records = parse(text.replace(/^\uFEFF/, ''), { columns: true, skip_empty_lines: true, relax_column_count: false }) as Array<
      Record<string, string>
    >
  } catch (e) {
    throw new CallsightError('InvalidInput', 'The file is not a CSV of annotations.', { cause: e })
  }
  const annotations = records.map((raw, i) => {
    const r = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, unneutralize(v)]))
    const parsed = z
      .object({
        id: z.string().min(1),
        callId: z.string().min(1),
        author: z.string(),
        createdAt: int,
        status: ReviewStatus,
        statusAt: int,
        tags: z.string(),
        tagsAt: int,
        note: z.string(),
        noteAt: int,
        scorecardId: z.string(),
        scorecardVersion: z.string(),
        answers: z.string(),
        total: z.string(),
        failed: z.string(),
        scoreAt: int,
        updatedAt: int,
        updatedBy: z.string()
      })
      .safeParse(r)
    if (!parsed.success)
      throw new CallsightError(
        'InvalidInput',
        `Row ${i + 2} of the CSV is not an annotation: ${parsed.error.issues[0]?.path.join('.') ?? ''} ${parsed.error.issues[0]?.message ?? ''}`.trim()
      )
    const p = parsed.data
    const score: Score | null =
      p.scorecardId === ''
        ? null
        : {
            scorecardId: p.scorecardId,
            version: Number(p.scorecardVersion),
            answers: Answers.parse(JSON.parse(p.answers || '{}')),
            total: p.total === '' ? null : Number(p.total),
            failed: p.failed === '1'
          }
    return Stored.parse({ ...p, tags: z.array(z.string()).parse(JSON.parse(p.tags || '[]')), score })
  })
  return { annotations, scorecards: [] }
}

/** JSON text, or InvalidInput saying it is not. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (e) {
    throw new CallsightError('InvalidInput', 'The file is not JSON.', { cause: e })
  }
}

export function parseAnnotations(text: string, format: TransferFormat): { annotations: Stored[]; scorecards: Scorecard[] } {
  if (format === 'csv') return fromCsv(text)
  const r = AnnotationsFile.safeParse(parseJson(text))
  if (!r.success)
    throw new CallsightError(
      'InvalidInput',
      `The file is not an annotations export: ${r.error.issues[0]?.path.join('.') ?? ''} ${r.error.issues[0]?.message ?? ''}`.trim()
    )
  return r.data
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * Merges annotations into the cache, field by field: the value written later wins (ties keep
 * the local one). A field both sides hold with different values is a conflict, reported
 * with the side kept. Scorecard versions missing here are added as they were.
 */
export function importAnnotations(cache: CallCache, incoming: { annotations: Stored[]; scorecards: Scorecard[] }): ImportReport {
  for (const card of incoming.scorecards) {
    if (!cache.scorecards.get(card.id, card.version)) cache.scorecards.insertVersion(card)
  }
  const report: ImportReport = { added: 0, updated: 0, unchanged: 0, conflicts: [] }
  const local = cache.annotations.getMany(incoming.annotations.map((a) => a.callId))
  const writes: Array<{ callId: string; changes: FieldChanges; opts: WriteOptions }> = []
  for (const theirs of incoming.annotations) {
    const mine = local.get(theirs.callId)
    const theirsFull: Annotation = { ...theirs, note: maskText(theirs.note), tags: theirs.tags.map(maskText), callMissing: false }
    const identity = { id: theirs.id, author: theirs.author, createdAt: theirs.createdAt }
    let changed = false
    for (const field of FIELDS) {
      const incomingAt = fieldAt(theirsFull, field)
      if (incomingAt === 0) continue
      const value = fieldOf(theirsFull, field)
      if (mine) {
        const mineAt = fieldAt(mine, field)
        if (same(fieldOf(mine, field), value)) continue
        const kept = incomingAt > mineAt ? 'incoming' : 'local'
        if (mineAt > 0) report.conflicts.push({ callId: theirs.callId, field, kept })
        if (kept === 'local') continue
      }
      writes.push({
        callId: theirs.callId,
        changes: { [field]: value } as FieldChanges,
        opts: { author: theirs.updatedBy, at: incomingAt, history: false, identity }
      })
      changed = true
    }
    if (!mine) report.added++
    else if (changed) report.updated++
    else report.unchanged++
  }
  cache.annotations.writeMany(writes)
  return report
}
