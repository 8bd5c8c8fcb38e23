import type { CellValue, ColumnInfo, ResultColumn } from '../../../shared/domain'
import { formatClockDuration, knownField, languageName } from './extraFields'
import { formatValue } from './format'

const REVIEW_LABELS: Record<string, string> = {
  'review:status': 'review.colStatus',
  'review:tags': 'review.colTags',
  'review:score': 'review.colScore'
}

/**
 * A column's header in the UI language: the call type and known fields by message key, an
 * extra field by the name the user gave it in Settings (`ownNames`, by key) first, analysis
 * keys by their friendly name.
 */
export function columnLabel(
  info: Pick<ColumnInfo, 'column' | 'label'>,
  t: (key: string) => string,
  ownNames?: Readonly<Record<string, string>>
): string {
  if (info.column === 'callType') return t('fields.callType')
  if (info.column.startsWith('review:')) return t(REVIEW_LABELS[info.column] ?? 'review.panel')
  if (info.column.startsWith('extra:')) {
    const own = ownNames?.[info.column.slice(6)]
    if (own) return own
    const known = knownField(info.column.slice(6))
    return known ? t(known.labelKey) : info.label
  }
  return info.label
}

/**
 * A cell as text: known fields as "Other fields" reads them (durations as m:ss), a review
 * status by its name, numbers in the UI language's digits, with `t` text numbers and
 * true/false in the UI language too (formatValue), nothing as empty.
 */
export function formatCell(column: ResultColumn, value: CellValue | undefined, locale: string, t?: (key: string) => string): string {
  if (value === null || value === undefined) return ''
  if (column === 'review:status' && t && typeof value === 'string') return t(`review.status_${value}`)
  const known = column.startsWith('extra:') ? knownField(column.slice(6)) : null
  if (known?.kind === 'duration' && typeof value === 'number') return formatClockDuration(value)
  if (known?.kind === 'language' && typeof value === 'string') return languageName(value, locale)
  if (typeof value === 'number') return new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(value)
  return t ? formatValue(value, locale, { yes: t('common.yes'), no: t('common.no') }) : value
}
