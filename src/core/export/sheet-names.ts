/**
 * Excel's rules for a sheet name, which a scorecard's name (anyone's text) must be made to
 * follow: a workbook that breaks one is refused by Excel ("We found a problem with some
 * content") and cannot be read back by exceljs.
 * - none of : \ / ? * [ ] (and no control characters, which XML cannot hold);
 * - no ' first or last;
 * - 1 to 31 characters (UTF-16 units, as Excel counts them);
 * - not "History" (Excel keeps it for its change tracking);
 * - unique, ignoring case.
 */
export const MAX_SHEET_NAME = 31
const FORBIDDEN = /[:\\/?*[\]\u0000-\u001f\u007f-\u009f\ufffe\uffff]/g
// Unpaired surrogates are not characters; an XML writer cannot encode them either.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g
const EDGES = /^[\s']+|[\s']+$/g
const RESERVED = ['history']

/** Sheet names already used in a workbook, compared as Excel does: case ignored. */
export class SheetNames {
  private readonly taken = new Set<string>()

  constructor(existing: readonly string[] = []) {
    for (const n of [...RESERVED, ...existing]) this.add(n)
  }

  has(name: string): boolean {
    return keys(name).some((k) => this.taken.has(k))
  }

  private add(name: string): void {
    for (const k of keys(name)) this.taken.add(k)
  }

  /** A valid name for `base`, distinct from every name handed out or given before; `fallback` when nothing usable is left. */
  claim(base: string, fallback: string): string {
    const clean = tidy(cut(base.replace(LONE_SURROGATE, '').replace(FORBIDDEN, ' '), 200)) || tidy(fallback) || 'Sheet'
    let name = tidy(cut(clean, MAX_SHEET_NAME)) || 'Sheet'
    for (let i = 2; this.has(name) && i < 10_000; i++) {
      const suffix = ` (${i})`
      name = `${tidy(cut(clean, MAX_SHEET_NAME - suffix.length)) || 'Sheet'}${suffix}`
    }
    this.add(name)
    return name
  }
}

/** Case-insensitive keys: lower and upper case both, since the two fold some letters (İ, ß) differently. */
function keys(name: string): string[] {
  const n = name.normalize('NFC')
  return [`l:${n.toLowerCase()}`, `u:${n.toUpperCase()}`]
}

function tidy(s: string): string {
  return s.replace(EDGES, '')
}

/** At most `max` UTF-16 units, never cutting a surrogate pair in half. */
function cut(s: string, max: number): string {
  if (s.length <= max) return s
  const head = s.slice(0, max)
  return /[\ud800-\udbff]$/.test(head) ? head.slice(0, -1) : head
}
