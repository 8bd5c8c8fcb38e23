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
  /**
   * For each UTF-16 unit of `text`, where its code point starts and ends in the original;
   * null when `text` is the original.
   */
  starts: Int32Array | null
  ends: Int32Array | null
}

export function detectionView(original: string): DetectionView {
  if (!FORMAT_CHAR.test(original) && original.normalize('NFKC') === original) return { text: original, starts: null, ends: null }
  // One code point at a time, so every unit of the view knows where it came from.
  let text = ''
  const starts: number[] = []
  const ends: number[] = []
  for (let i = 0; i < original.length; ) {
    const cp = original.codePointAt(i)!
    const width = cp > 0xffff ? 2 : 1
    const char = original.slice(i, i + width)
    const out = cp < 0x80 ? char : FORMAT_CHAR.test(char) ? '' : char.normalize('NFKC')
    for (let k = 0; k < out.length; k++) {
      starts.push(i)
      ends.push(i + width)
    }
    text += out
    i += width
  }
  return { text, starts: Int32Array.from(starts), ends: Int32Array.from(ends) }
}

/** The original range behind the view's range [start, end). */
export function originalRange(view: DetectionView, start: number, end: number): [number, number] {
  if (view.starts === null || view.ends === null) return [start, end]
  return [view.starts[start]!, view.ends[end - 1]!]
}

/** What a character reads as once normalized, for the guard's cheap pre-check. */
export const READS_OTHER = 0
export const READS_DIGIT = 1
export const READS_AT = 2
export type Reads = typeof READS_OTHER | typeof READS_DIGIT | typeof READS_AT

let table: Uint8Array | null = null

/**
 * Full-width, superscript, circled and mathematical digits read as digits, "＠" and "﹫" as
 * "@". Built on first use from NFKC itself (about 10 ms), so it cannot drift from
 * detectionView. Astral characters arrive as surrogates; a high surrogate counts as a digit,
 * which only ever sends a text down the slower, exact path.
 */
export function readsAs(code: number): Reads {
  if (code >= 0xd800 && code <= 0xdbff) return READS_DIGIT
  if (table === null) {
    const t = new Uint8Array(0x10000)
    for (let c = 0x80; c < 0x10000; c++) {
      if (c >= 0xd800 && c <= 0xdfff) continue
      const n = String.fromCharCode(c).normalize('NFKC')
      if (n.includes('@')) t[c] = READS_AT
      else if (/[0-9]/.test(n)) t[c] = READS_DIGIT
    }
    table = t
  }
  return table[code] as Reads
}
