import { hash } from 'node:crypto'
import type { AnalysisItem, CallRecord } from '../../shared/domain'

/** Separators that cannot occur in JSON text or ordinary strings, so fields never run together. */
const FS = '\u0001'
const RS = '\u0002'

export function extraJson(extra: Record<string, unknown>): string {
  for (const _ in extra) return JSON.stringify(extra)
  return '{}'
}

/** Hash of everything but the analysis: a page without analysis can still be compared. */
export function baseHash(r: CallRecord, extra: string): string {
  return hash('sha1', `${r.callAt}${FS}${r.callDate}${FS}${r.title}${FS}${r.summary}${FS}${extra}`, 'base64')
}

export function analysisHash(items: readonly AnalysisItem[]): string {
  let s = ''
  for (const a of items) s += `${a.key}${FS}${a.friendlyName}${FS}${a.value}${RS}`
  return hash('sha1', s, 'base64')
}

export interface CallRowDb {
  id: number
  call_id: string
  call_at: number
  call_date: string
  title: string
  summary: string
  extra: string
  analysis_count: number
  first_seen_at: number
  last_changed_at: number
}

export interface AnalysisRowDb {
  key: string
  friendly_name: string
  value: string
}

export function toRecord(row: CallRowDb, analysis: readonly AnalysisRowDb[]): CallRecord {
  let extra: Record<string, unknown> = {}
  if (row.extra !== '{}') {
    const parsed: unknown = JSON.parse(row.extra)
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) extra = parsed as Record<string, unknown>
  }
  return {
    callId: row.call_id,
    callAt: row.call_at,
    callDate: row.call_date,
    title: row.title,
    summary: row.summary,
    analysis: analysis.map((a) => ({ key: a.key, friendlyName: a.friendly_name, value: a.value })),
    extra,
    firstSeenAt: row.first_seen_at,
    lastChangedAt: row.last_changed_at
  }
}
