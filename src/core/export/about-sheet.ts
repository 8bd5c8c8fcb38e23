import type { AnalysisLayout, ExportColumn } from '../../shared/domain'
import type { HeaderLabels } from './header-labels'
import type { ZoneClock } from './zoned-time'

/**
 * The metadata sheet's values as a reader of the workbook reads them, in its language: the
 * chosen columns by their headers, the layout's own word, and the query as filters one per
 * line ("Text: fatura", "From: 2026-01-05 …"), not the JSON the app keeps it in.
 */
export interface AboutWords {
  columnNames: Record<ExportColumn, string>
  layouts: Record<AnalysisLayout, string>
  /** Query filter labels; an unknown filter keeps its own name. */
  filters: Record<string, string>
  resultsWords: Record<string, string>
  allCalls: string
  selectedRows: (n: number) => string
  pickedCalls: (n: number) => string
}

export function describeColumns(columns: readonly ExportColumn[], words: AboutWords): string {
  return columns.map((c) => words.columnNames[c] ?? c).join(', ')
}

export function describeLayout(layout: AnalysisLayout, words: AboutWords): string {
  return words.layouts[layout] ?? layout
}

/** The query, one filter a line; defaults (empty text, no range, any type) are left out. */
export function describeQuery(value: unknown, labels: HeaderLabels, clock: ZoneClock): string {
  const words = labels.about
  if (value === undefined || value === null) return '—'
  if (typeof value !== 'object') return String(value)
  const q = value as Record<string, unknown>
  if (typeof q['ids'] === 'number') return words.pickedCalls(q['ids'])
  if ('query' in q && typeof q['selectedRows'] === 'number') {
    return [words.selectedRows(q['selectedRows']), describeQuery(q['query'], labels, clock)].join('\n')
  }
  const lines: string[] = []
  for (const [key, v] of Object.entries(q)) {
    const text = filterText(key, v, labels, clock)
    if (text !== null) lines.push(`${words.filters[key] ?? key}: ${text}`)
  }
  return lines.length > 0 ? lines.join('\n') : words.allCalls
}

function filterText(key: string, v: unknown, labels: HeaderLabels, clock: ZoneClock): string | null {
  if (v === null || v === undefined || v === '') return null
  if (Array.isArray(v)) return v.length === 0 ? null : v.map((x) => plain(x, labels)).join(', ')
  if ((key === 'from' || key === 'to') && typeof v === 'number') return clock.iso(v)
  if (key === 'results' && typeof v === 'string') return labels.about.resultsWords[v] ?? v
  if (key === 'sort' && v === 'date_desc') return null
  return plain(v, labels)
}

/** A filter's value as words: booleans in the language, objects as "name value" pairs. */
function plain(v: unknown, labels: HeaderLabels): string {
  if (typeof v === 'boolean') return v ? labels.trueWord : labels.falseWord
  if (v === null || v === undefined) return '—'
  if (typeof v !== 'object') return String(v)
  return Object.values(v as Record<string, unknown>)
    .filter((x) => x !== null && x !== undefined && x !== '')
    .map((x) => (typeof x === 'object' ? JSON.stringify(x) : plain(x, labels)))
    .join(' ')
}
