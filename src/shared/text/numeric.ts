/**
 * The numeric reading of an analysis value, or null. Values come as strings; a value is
 * numeric when it is a plain decimal, with a dot or a single decimal comma (Turkish
 * style). Anything else (thousands separators, units, dates) stays text, so that a range
 * filter never matches a value by accident.
 */
const NUMBER = /^[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)(?:[eE][+-]?\d+)?$/

/** Characters a number can start with: digits, sign, decimal dot or comma. */
const startsNumber = (c: number): boolean => (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46 || c === 44

export function parseNumeric(value: string): number | null {
  // Most values are words: a printable ASCII first character that cannot start a number
  // settles them (anything trim() would strip, ASCII or not, goes the long way).
  const first = value.charCodeAt(0)
  if (first > 32 && first < 128 && !startsNumber(first)) return null
  const s = value.trim()
  if (s.length === 0 || s.length > 40 || !NUMBER.test(s)) return null
  const n = Number(s.replace(',', '.'))
  return Number.isFinite(n) ? n : null
}
