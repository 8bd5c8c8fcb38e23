/**
 * Cell-level safety rules shared by the CSV and XLSX writers: formula neutralization and
 * the "is this a real number" test. docs/export.md states the same rules for readers.
 */

/**
 * First characters that make a spreadsheet treat a cell as a formula, or that Excel strips
 * before it looks for one (OWASP "CSV Injection"). LF is not in csv-stringify's own list;
 * the full-width forms are, because Apple Numbers normalizes them to their ASCII twins.
 */
const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r', '\n', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'])

/**
 * A trigger right after a line break inside a cell. A spreadsheet that reads the cell whole
 * (quoted) shows it as text, but a reader that splits on line breaks (a naive import, a
 * paste into a sheet, a CSV opened with the wrong settings) makes that line a cell of its
 * own, starting with a live formula. CRLF counts as one break, so "\r\n=" gets one quote.
 */
const TRIGGER_AFTER_BREAK = /(\r\n|\r|\n)(?=[=+\-@\t\uFF1D\uFF0B\uFF0D\uFF20])/g

/**
 * A text cell, made inert: a leading trigger gets a single quote in front of it, and so does
 * a trigger that starts any line inside the cell.
 */
export function neutralizeFormula(text: string): string {
  if (text.length === 0) return text
  const head = FORMULA_TRIGGERS.has(text[0]!) ? `'${text}` : text
  // Most texts have no line break; skip the regex for them.
  return head.includes('\n') || head.includes('\r') ? head.replace(TRIGGER_AFTER_BREAK, "$1'") : head
}

/**
 * Plain decimal numerals only: optional minus, no leading zeros, optional fraction, no
 * exponent, no grouping, no plus sign. At most 15 significant digits, so the double a
 * spreadsheet stores says exactly what the text said.
 */
const NUMERAL = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/
const MAX_SIGNIFICANT_DIGITS = 15

/** An analysis value that is a real number: written as a number cell / bare numeral. */
export class NumberCell {
  constructor(
    /** The value exactly as the service sent it; CSV writes this, never a re-formatted double. */
    readonly text: string,
    readonly value: number
  ) {}
}

export function parseRealNumber(text: string): NumberCell | null {
  if (text.length === 0 || text.length > 40 || !NUMERAL.test(text)) return null
  const digits = text.replace(/[-.]/g, '').replace(/^0+/, '')
  if (digits.length > MAX_SIGNIFICANT_DIGITS) return null
  const value = Number(text)
  return Number.isFinite(value) ? new NumberCell(text, value) : null
}

/** The call's instant; each writer renders it for its format (ISO text or a date cell). */
export class DateCell {
  constructor(readonly at: number) {}
}

/** What a tabular row holds. Strings are already guarded and neutralized. */
export type Cell = string | NumberCell | DateCell
