import type { AnalysisFilter, BreakdownBar, Facets, FieldFilter, ResultColumn, TrendBucket } from '../../../shared/domain'
import { completeAnalysis, type SearchFilters } from './query'
import { daysToRange } from './dateRange'

/**
 * The active query as chips, so Insight never computes over filters it does not show: one
 * chip per part (text, dates, types, direction, results, each analysis filter), each
 * removable on its own. Labels are message keys with parameters; the view translates them.
 */
export interface QueryChip {
  id: string
  /** A message key and its parameters. */
  label: { key: string; params: Record<string, string> }
  /** The part as the user typed or the tenant named it: rendered as text, never as HTML. */
  value: string
  remove(filters: SearchFilters): void
}

export interface ChipFormat {
  range(from: number | null, to: number | null): string
  count(n: number): string
  keyName(key: string): string
  typeName(value: string): string
  /** An extra field's name in the UI language ("Agent" for agentName). */
  fieldName(field: string): string
}

export function queryChips(filters: SearchFilters, fmt: ChipFormat): QueryChip[] {
  const chips: QueryChip[] = []
  if (filters.text.trim() !== '')
    chips.push({
      id: 'text',
      label: { key: 'insight.chipText', params: {} },
      value: filters.text.trim(),
      remove: (f) => void (f.text = '')
    })
  if (filters.from !== null || filters.to !== null)
    chips.push({
      id: 'dates',
      label: { key: 'insight.chipDates', params: {} },
      value: fmt.range(filters.from, filters.to),
      remove: (f) => Object.assign(f, { from: null, to: null, relativeDays: null })
    })
  for (const type of filters.callTypes)
    chips.push({
      id: `type:${type}`,
      label: { key: 'insight.chipType', params: {} },
      value: fmt.typeName(type),
      remove: (f) => void (f.callTypes = f.callTypes.filter((x) => x !== type))
    })
  if (filters.direction !== null)
    chips.push({
      id: 'direction',
      label: { key: 'insight.chipDirection', params: {} },
      value: fmt.count(filters.direction),
      remove: (f) => void (f.direction = null)
    })
  if (filters.results === 'answered')
    chips.push({ id: 'results', label: { key: 'filters.answered', params: {} }, value: '', remove: (f) => void (f.results = 'all') })
  for (const a of completeAnalysis(filters.analysis)) {
    const value =
      a.kind === 'equals' ? `= ${a.value}` : `${a.min === null ? '…' : fmt.count(a.min)} – ${a.max === null ? '…' : fmt.count(a.max)}`
    chips.push({
      id: `analysis:${analysisId(a)}`,
      label: { key: 'insight.chipAnalysis', params: { name: fmt.keyName(a.key) } },
      value,
      remove: (f) => void (f.analysis = f.analysis.filter((x) => analysisId(x) !== analysisId(a)))
    })
  }
  for (const f of filters.fields)
    chips.push({
      id: `field:${fieldId(f)}`,
      label: { key: 'insight.chipAnalysis', params: { name: fmt.fieldName(f.field) } },
      value:
        f.kind === 'equals' ? `= ${f.value}` : `${f.min === null ? '…' : fmt.count(f.min)} – ${f.max === null ? '…' : fmt.count(f.max)}`,
      remove: (x) => void (x.fields = x.fields.filter((y) => fieldId(y) !== fieldId(f)))
    })
  return chips
}

function fieldId(f: FieldFilter): string {
  return f.kind === 'equals' ? `${f.field}=${f.value}` : `${f.field}:${f.min ?? ''}..${f.max ?? ''}`
}

function analysisId(a: AnalysisFilter): string {
  return a.kind === 'equals' ? `${a.key}=${a.value}` : `${a.key}:${a.min ?? ''}..${a.max ?? ''}`
}

/** Drill into one day of the per-day chart: the range becomes that calendar day in the zone. */
export function drillDay(filters: SearchFilters, day: string, zone: string): void {
  const [year, month, d] = day.split('-').map(Number)
  if (!year || !month || !d) return
  const range = daysToRange({ year, month, day: d }, { year, month, day: d }, zone)
  Object.assign(filters, { from: range.from, to: range.to, relativeDays: null })
}

/**
 * Drill into one bar of a parameter's distribution: its value (an equals filter), or for a
 * numeric bucket its range. Replaces an earlier filter on the same key so drilling twice
 * narrows rather than contradicts.
 */
export function drillValue(filters: SearchFilters, key: string, bucket: Facets['perValue'][number]): void {
  // Numeric buckets are half-open [min, max) (the last one closed) and range filters
  // inclusive: the filter stops just below an open bucket's upper bound, so the drill finds
  // exactly the bar's calls.
  const next: AnalysisFilter =
    bucket.min !== null && bucket.max !== null
      ? { kind: 'range', key, min: bucket.min, max: bucket.closed ? bucket.max : below(bucket.max) }
      : { kind: 'equals', key, value: bucket.value }
  filters.analysis = [...filters.analysis.filter((a) => a.key !== key), next]
}

/** The largest double below x (Math.nextDown, which JavaScript lacks). */
export function below(x: number): number {
  if (!Number.isFinite(x)) return x
  if (x === 0) return -Number.MIN_VALUE
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, x)
  const bits = view.getBigUint64(0)
  view.setBigUint64(0, x > 0 ? bits - 1n : bits + 1n)
  return view.getFloat64(0)
}

/**
 * Drill into one bar of Insight's breakdown by a column: the call type, the analysis key's
 * value or range, or the extra field's value or range. Replaces an earlier filter on the same
 * column, as drillValue does.
 */
export function drillColumn(filters: SearchFilters, column: ResultColumn, bar: BreakdownBar): void {
  if (column === 'callType') {
    filters.callTypes = [bar.value]
    return
  }
  if (column.startsWith('analysis:')) return drillValue(filters, column.slice(9), bar)
  const field = column.slice(6)
  const next: FieldFilter =
    bar.min !== null && bar.max !== null
      ? { kind: 'range', field, min: bar.min, max: bar.closed ? bar.max : below(bar.max) }
      : { kind: 'equals', field, value: bar.value }
  filters.fields = [...filters.fields.filter((f) => f.field !== field), next]
}

/** Drill into one period of a trend: the range becomes that day, or that week (Monday to Sunday), in the zone. */
export function drillPeriod(filters: SearchFilters, period: string, bucket: TrendBucket, zone: string): void {
  const [year, month, d] = period.split('-').map(Number)
  if (!year || !month || !d) return
  const last = new Date(Date.UTC(year, month - 1, d + (bucket === 'week' ? 6 : 0)))
  const range = daysToRange(
    { year, month, day: d },
    { year: last.getUTCFullYear(), month: last.getUTCMonth() + 1, day: last.getUTCDate() },
    zone
  )
  Object.assign(filters, { from: range.from, to: range.to, relativeDays: null })
}
