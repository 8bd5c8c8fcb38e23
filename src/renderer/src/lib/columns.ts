import type { CellValue, ColumnInfo, ResultColumn } from '../../../shared/domain'

/** The extra fields the app has a name for; any other shows under its own name. */
const KNOWN_EXTRA: Record<string, string> = { agentName: 'columns.agentName', durationSeconds: 'columns.durationSeconds' }

/** A column's header in the UI language: the call type and known fields by message key, analysis keys by their friendly name. */
export function columnLabel(info: Pick<ColumnInfo, 'column' | 'label'>, t: (key: string) => string): string {
  if (info.column === 'callType') return t('columns.callType')
  if (info.column.startsWith('extra:')) {
    const key = KNOWN_EXTRA[info.column.slice(6)]
    return key ? t(key) : info.label
  }
  return info.label
}

/** m:ss (h:mm:ss from an hour on), as durations read in a table. */
export function formatClock(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const pad = (n: number): string => String(n).padStart(2, '0')
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`
}

/** A cell as text: durations as m:ss, numbers in the UI language's digits, nothing as empty. */
export function formatCell(column: ResultColumn, value: CellValue | undefined, locale: string): string {
  if (value === null || value === undefined) return ''
  if (column === 'extra:durationSeconds' && typeof value === 'number') return formatClock(value)
  if (typeof value === 'number') return new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(value)
  return value
}
