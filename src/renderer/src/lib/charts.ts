import type { Facets } from '../../../shared/domain'
import { formatValue } from './format'

/**
 * Calls per day with the missing days filled with zero, so gaps show as gaps rather than as
 * a line drawn straight across them. Days are YYYY-MM-DD strings in the display zone.
 */
export function fillDays(perDay: Facets['perDay']): Array<{ day: string; count: number }> {
  if (perDay.length === 0) return []
  const sorted = [...perDay].sort((a, b) => a.day.localeCompare(b.day))
  const byDay = new Map(sorted.map((d) => [d.day, d.count]))
  const out: Array<{ day: string; count: number }> = []
  const first = sorted[0]?.day ?? ''
  const last = sorted[sorted.length - 1]?.day ?? ''
  // Walk the calendar in UTC: only the labels matter here, not instants.
  const cursor = new Date(`${first}T00:00:00Z`)
  const end = new Date(`${last}T00:00:00Z`)
  let guard = 0
  while (cursor <= end && guard++ < 20_000) {
    const day = cursor.toISOString().slice(0, 10)
    out.push({ day, count: byDay.get(day) ?? 0 })
    cursor.setUTCDate(cursor.getUTCDate() + 1)
  }
  return out
}

/** Labels for a parameter's distribution: the value, or "min–max" for numeric buckets. */
export function valueLabels(perValue: Facets['perValue'], locale: string, words?: { yes: string; no: string }): string[] {
  const nf = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 })
  return perValue.map((v) =>
    v.min !== null && v.max !== null && v.min !== v.max
      ? `${nf.format(v.min)}–${nf.format(v.max)}`
      : words
        ? formatValue(v.value, locale, words)
        : v.value
  )
}
