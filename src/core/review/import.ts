import { parse } from 'csv-parse/sync'
import { z } from 'zod'
import { AnnotationField, type Annotation, type ImportReport } from '../../shared/review'
import type { CallCache } from '../cache'
import { fieldAt, fieldOf } from '../cache/review/annotation-rows'
import type { FieldChanges, WriteOptions } from '../cache/review/annotation-store'
import { CallsightError } from '../errors'
import { maskText } from '../pii'
import { checkAnnotations, checkScorecards, type Entry, type Refusal } from './import-checks'
import { jsonArrayLines } from './json-lines'
import { CSV_COLUMNS, parseJson, type TransferFormat } from './transfer'

/**
 * The import half of `callsight annotations export|import`. A file is read entry by entry:
 * an entry an in-app save would refuse (import-checks.ts) is reported with the line it starts
 * on and the reason, and every other entry is imported; only a file that is not an export at
 * all is refused whole.
 */

export interface ParsedImport {
  scorecards: Entry[]
  annotations: Entry[]
}

/** The inverse of neutralizeFormula for a cell this module wrote. */
const unneutralize = (t: string): string =>
  t.replace(/^'(?=[=+\-@\t\r\n\uFF1D\uFF0B\uFF0D\uFF20])/, '').replace(/(\r\n|\r|\n)'(?=[=+\-@\t\uFF1D\uFF0B\uFF0D\uFF20])/g, '$1')

const INT = /^-?\d+$/
/** A CSV cell as the number it holds, or the text itself (which the schema then refuses). */
const num = (t: string | undefined): unknown => (t !== undefined && INT.test(t) ? Number(t) : t)
const json = (t: string | undefined, empty: unknown): unknown => {
  if (t === undefined || t === '') return empty
  try {
    return JSON.parse(t) as unknown
  } catch {
    return t
  }
}

/** A CSV row in the JSON file's shape, for the same checks; total and failed are not read. */
function rowToEntry(r: Record<string, string | undefined>): unknown {
  return {
    id: r['id'],
    callId: r['callId'],
    author: r['author'],
    createdAt: num(r['createdAt']),
    status: r['status'],
    statusAt: num(r['statusAt']),
    tags: json(r['tags'], []),
    tagsAt: num(r['tagsAt']),
    note: r['note'],
    noteAt: num(r['noteAt']),
    score: r['scorecardId']
      ? { scorecardId: r['scorecardId'], version: num(r['scorecardVersion']), answers: json(r['answers'], {}) }
      : null,
    scoreAt: num(r['scoreAt']),
    updatedAt: num(r['updatedAt']),
    updatedBy: r['updatedBy']
  }
}

function fromCsv(text: string): ParsedImport {
  const buf = Buffer.from(text.replace(/^\uFEFF/, ''), 'utf8')
  let records: Array<{ record: Record<string, string>; info: { bytes: number } }>
  try {
    records = parse(buf, { columns: true, skip_empty_lines: true, relax_column_count: true, info: true }) as typeof records
  } catch (e) {
    throw new CallsightError('InvalidInput', 'The file is not a CSV of annotations.', { cause: e })
  }
  const header = buf.indexOf(0x0a) + 1
  const headerCells = buf.subarray(0, header).toString('utf8').trim().split(',')
  if (!CSV_COLUMNS.every((c) => headerCells.includes(c))) {
    throw new CallsightError('InvalidInput', `The file is not a CSV of annotations: its first line must name ${CSV_COLUMNS.join(',')}.`)
  }
  // A record's first line: the end of the one before it, past any empty lines skipped.
  let line = 2
  let at = header
  const annotations = records.map(({ record, info }) => {
    while (at < buf.length && (buf[at] === 0x0a || buf[at] === 0x0d)) {
      if (buf[at] === 0x0a) line++
      at++
    }
    const start = line
    for (let i = at; i < info.bytes; i++) if (buf[i] === 0x0a) line++
    at = info.bytes
    const r = Object.fromEntries(Object.entries(record).map(([k, v]) => [k, typeof v === 'string' ? unneutralize(v) : v]))
    return { line: start, value: rowToEntry(r) }
  })
  return { scorecards: [], annotations }
}

const FileHead = z.object({
  format: z.literal('callsight-annotations'),
  version: z.literal(1),
  scorecards: z.array(z.unknown()).default([]),
  annotations: z.array(z.unknown())
})

export function parseAnnotations(text: string, format: TransferFormat): ParsedImport {
  if (format === 'csv') return fromCsv(text)
  const r = FileHead.safeParse(parseJson(text))
  if (!r.success)
    throw new CallsightError(
      'InvalidInput',
      `The file is not an annotations export: ${r.error.issues[0]?.path.join('.') ?? ''} ${r.error.issues[0]?.message ?? ''}`.trim()
    )
  const lines = jsonArrayLines(text)
  const entries = (key: string, list: unknown[]): Entry[] => list.map((value, i) => ({ line: lines.get(key)?.[i] ?? 0, value }))
  return { scorecards: entries('scorecards', r.data.scorecards), annotations: entries('annotations', r.data.annotations) }
}

const FIELDS: readonly AnnotationField[] = AnnotationField.options
const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/**
 * Merges annotations into the cache, field by field: the value written later wins (ties keep
 * the local one). A field both sides hold with different values is a conflict, reported
 * with the side kept. Scorecard versions missing here are added as they were. Entries that
 * do not pass the checks are reported in `refused`, by line. `now` bounds the times taken.
 */
export function importAnnotations(cache: CallCache, incoming: ParsedImport, now: number): ImportReport {
  const cards = checkScorecards(incoming.scorecards, now)
  for (const card of cards.scorecards) {
    if (!cache.review.scorecards.get(card.id, card.version)) cache.review.scorecards.insertVersion(card)
  }
  const checked = checkAnnotations(cache, incoming.annotations, now)
  const refused: Refusal[] = [...cards.refused, ...checked.refused].sort((a, b) => a.line - b.line)
  const report: ImportReport = { added: 0, updated: 0, unchanged: 0, conflicts: [], refused }
  const local = cache.review.annotations.getMany(checked.annotations.map((a) => a.callId))
  const writes: Array<{ callId: string; changes: FieldChanges; opts: WriteOptions }> = []
  for (const theirs of checked.annotations) {
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
  cache.review.annotations.writeMany(writes)
  return report
}
