/**
 * What the detectors read: the text in NFKC with invisible format characters removed, so a
 * full-width "０５３２", a "＠", a non-breaking space or a zero-width space inside an address
 * reads as the plain form. Masks are applied to the original text, not to this view, so a
 * text keeps its own characters everywhere the guard found nothing.
 */

/** Invisible format characters (Cf): zero-width spaces and joiners, soft hyphen, BOM, bidi marks. */
const FORMAT_CHAR = /\p{Cf}/u

export interface DetectionView {
  text: string
  original: string
  /**
   * For each UTF-16 unit of `text`, where the code point it came from starts in the
   * original; null when `text` is the original.
   */
  starts: Int32Array | null
}

/** What a BMP character is, as far as the guard cares; bits, built once from NFKC itself. */
const DIGIT = 1
const AT = 2
const CHANGES = 4
const FORMAT = 8

interface Tables {
  kind: Uint8Array
  /** The one UTF-16 unit NFKC makes of a character, when it makes exactly one (else 0). */
  single: Uint16Array
  /** NFKC of every BMP character it changes (about 3,000). */
  normalized: Map<number, string>
}

let tables: Tables | null = null

/**
 * Every BMP character normalized once (about 10 ms, on first use), so the guard's checks are
 * table lookups that cannot drift from what NFKC does.
 */
function build(): Tables {
  const kind = new Uint8Array(0x10000)
  const single = new Uint16Array(0x10000)
  const normalized = new Map<number, string>()
  for (let c = 0x80; c < 0x10000; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue
    const ch = String.fromCharCode(c)
    if (FORMAT_CHAR.test(ch)) {
      kind[c] = FORMAT
      continue
    }
    const n = ch.normalize('NFKC')
    if (n === ch) continue
    normalized.set(c, n)
    if (n.length === 1) single[c] = n.charCodeAt(0)
    kind[c] = CHANGES | (n.includes('@') ? AT : /[0-9]/.test(n) ? DIGIT : 0)
  }
  return { kind, single, normalized }
}

const getTables = (): Tables => (tables ??= build())

export function detectionView(original: string): DetectionView {
  if (!FORMAT_CHAR.test(original) && original.normalize('NFKC') === original) return { text: original, original, starts: null }
  const { kind, single, normalized } = getTables()
  const n = original.length
  // The view is written as UTF-16 units into a typed array, each with where it came from,
  // and decoded once at the end: no string per character. Room is kept for every unit still
  // to read, so only a character NFKC expands needs to check it.
  let units = new Uint16Array(n + 16)
  let starts = new Int32Array(n + 16)
  let length = 0
  const expanded = (out: string, from: number, to: number): void => {
    const need = length + out.length + (n - to) + 16
    if (need > units.length) {
      const grow = <T extends Uint16Array | Int32Array>(a: T, b: T): T => (b.set(a), b)
      units = grow(units, new Uint16Array(need * 2))
      starts = grow(starts, new Int32Array(need * 2))
    }
    for (let k = 0; k < out.length; k++) {
      units[length] = out.charCodeAt(k)
      starts[length++] = from
    }
  }
  for (let i = 0; i < n; i++) {
    const c = original.charCodeAt(i)
    let unit = c
    if (c >= 0x80) {
      const k = kind[c]!
      if (k & FORMAT) continue
      if (k !== 0) {
        unit = single[c]!
        if (unit === 0) {
          expanded(normalized.get(c)!, i, i + 1)
          continue
        }
      } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
        // Astral (mathematical digits, emoji): rare enough to ask NFKC each time.
        const char = original.slice(i, i + 2)
        expanded(FORMAT_CHAR.test(char) ? '' : char.normalize('NFKC'), i, i + 2)
        i++
        continue
      }
    }
    units[length] = unit
    starts[length++] = i
  }
  const text = LITTLE_ENDIAN ? UTF16.decode(units.subarray(0, length)) : fromUnits(units.subarray(0, length))
  return { text, original, starts: starts.subarray(0, length) }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1
const UTF16 = new TextDecoder('utf-16le')
function fromUnits(units: Uint16Array): string {
  let text = ''
  for (let k = 0; k < units.length; k += 8192) text += String.fromCharCode(...units.subarray(k, k + 8192))
  return text
}

/** The original range behind the view's range [start, end): whole code points. */
export function originalRange(view: DetectionView, start: number, end: number): [number, number] {
  if (view.starts === null) return [start, end]
  const last = view.starts[end - 1]!
  const high = view.original.charCodeAt(last)
  const width = high >= 0xd800 && high <= 0xdbff && last + 1 < view.original.length ? 2 : 1
  return [view.starts[start]!, last + width]
}

/** What a character reads as once normalized, for the guard's cheap pre-check. */
export const READS_OTHER = 0
export const READS_DIGIT = 1
export const READS_AT = 2
export type Reads = typeof READS_OTHER | typeof READS_DIGIT | typeof READS_AT

/**
 * Full-width, superscript, circled and mathematical digits read as digits, "＠" and "﹫" as
 * "@". Astral characters arrive as surrogates; a high surrogate counts as a digit, which only
 * ever sends a text down the slower, exact path.
 */
export function readsAs(code: number): Reads {
  if (code >= 0xd800 && code <= 0xdbff) return READS_DIGIT
  const k = getTables().kind[code]!
  return k & AT ? READS_AT : k & DIGIT ? READS_DIGIT : READS_OTHER
}

let triggers: Uint8Array | null = null

/**
 * What every UTF-16 unit reads as for the guard's pre-check (READS_DIGIT, READS_AT or
 * READS_OTHER, as readsAs says, ASCII digits and "@" included), one lookup per character:
 * most texts hold none of them, and asking readsAs for each Turkish letter was most of the
 * guard's cost on an export.
 */
export function triggerTable(): Uint8Array {
  if (triggers !== null) return triggers
  const t = new Uint8Array(0x10000)
  for (let c = 48; c <= 57; c++) t[c] = READS_DIGIT
  t[64] = READS_AT
  for (let c = 0x80; c < 0x10000; c++) t[c] = readsAs(c)
  return (triggers = t)
}
