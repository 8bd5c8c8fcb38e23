import type { Writable } from 'node:stream'
import type { CallRecord, ExportColumn } from '../../shared/domain'
import type { ProgressThrottle } from './progress'
import { drained, pump } from './pump'
import type { HeaderLabels } from './header-labels'
import { reviewJson, type ReviewLookup } from './review-columns'
import type { TextGuard } from './text-guard'
import type { WriteResult } from './types'
import type { ZoneClock } from './zoned-time'

export interface JsonJob {
  out: Writable
  ndjson: boolean
  records: Iterable<CallRecord>
  columns: readonly ExportColumn[]
  /** JSON only: written first, as the "export" member. NDJSON has no header line, so every line is a call. */
  header: Record<string, unknown>
  text: TextGuard
  clock: ZoneClock
  progress: ProgressThrottle
  signal: AbortSignal | undefined
  /** Set when the `review` column is chosen. */
  review?: ReviewLookup
  /** The export's header language: the review status's label. */
  labels: HeaderLabels
}

/** Writes go out in chunks of about this size: one write per record costs more than the JSON itself. */
const CHUNK_CHARS = 64 * 1024

/**
 * JSON: `{"export": {...}, "calls": [ record, ... ]}`, streamed, one record per line.
 * NDJSON: one record per line. Records are as cached, with the columns left out that were
 * not chosen, every string passed through the PII guard, and `callDateInZone` added.
 */
export async function writeJson(job: JsonJob): Promise<WriteResult> {
  const { out, signal } = job
  let buffer = ''
  const flush = (): Promise<void> | undefined => {
    const full = !out.write(buffer)
    buffer = ''
    return full ? drained(out, signal) : undefined
  }

  if (!job.ndjson) buffer += `{"export":${JSON.stringify(job.header)},\n"calls":[`
  let first = true
  const count = await pump(job.records, signal, job.progress, (record) => {
    const line = JSON.stringify(jsonRecord(record, job))
    if (job.ndjson) buffer += `${line}\n`
    else buffer += `${first ? '\n' : ',\n'}${line}`
    first = false
    return buffer.length >= CHUNK_CHARS ? flush() : undefined
  })
  if (!job.ndjson) buffer += first ? ']}\n' : '\n]}\n'
  await flush()
  out.end()
  return { count, rows: count }
}

function jsonRecord(r: CallRecord, job: JsonJob): Record<string, unknown> {
  const { text } = job
  const has = (c: ExportColumn): boolean => job.columns.includes(c)
  const out: Record<string, unknown> = {}
  if (has('callId')) out.callId = r.callId
  if (has('callDate')) {
    out.callAt = r.callAt
    out.callDate = r.callDate
    out.callDateInZone = job.clock.iso(r.callAt)
  }
  if (has('title')) out.title = text.mask(r.title)
  if (has('summary')) out.summary = text.mask(r.summary)
  if (has('analysis')) {
    out.analysis = r.analysis.map((item) => ({
      key: text.mask(item.key),
      friendlyName: text.mask(item.friendlyName),
      value: text.mask(item.value)
    }))
  }
  if (job.review) out.review = reviewJson(job.review, text, job.labels, r)
  // Fields the app does not know may hold anything, personal data included.
  out.extra = text.deep(r.extra)
  if (r.firstSeenAt !== undefined) out.firstSeenAt = r.firstSeenAt
  if (r.lastChangedAt !== undefined) out.lastChangedAt = r.lastChangedAt
  return out
}
