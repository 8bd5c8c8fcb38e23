/**
 * The numeric reading of an analysis value, or null. Values come as strings; a value is
 * numeric when it is a plain decimal, with a dot or a single decimal comma (Turkish
 * style). Anything else (thousands separators, units, dates) stays text, so that a range
 * filter never matches a value by accident.
 */
const NUMBER = /^[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)(?:[eE][+-]?\d+)?$/

export function parseNumeric(value: string): number | null {
  const s = value.trim()
  if (s.length === 0 || s.length > 40 || !NUMBER.test(s)) return null
  const n = Number(s.replace(',', '.'))
  return Number.isFinite(n) ? n : null
}
