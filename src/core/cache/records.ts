import type { CallRecord } from '../../shared/domain'

export function extraJson(extra: Record<string, unknown>): string {
  for (const _ in extra) return JSON.stringify(extra)
  return '{}'
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

/** A stored `extra` column as the record's object (`{}` for anything but an object). */
export function parseExtra(json: string): Record<string, unknown> {
  if (json === '{}') return {}
  const parsed: unknown = JSON.parse(json)
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {}
}

export function toRecord(row: CallRowDb, analysis: readonly AnalysisRowDb[]): CallRecord {
  const extra = parseExtra(row.extra)
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
