import type { CallRecord } from '../../shared/domain'
import { foldChar, makeFoldChar } from '../../shared/text/fold'

/**
 * The same folding as shared foldText (a test holds them equal), built for bulk ingest: it
 * walks char codes, keeps runs that need no change (lower-case ASCII) as slices, and folds
 * only the rest; about twice as fast as two regular-expression passes (measured: 2.4 µs
 * instead of 5.2 µs for a call's title, summary and analysis text). Given `latin1` (a way to
 * make a string of bytes), text that folds into Latin-1 is written byte by byte instead and
 * made one string at the end. A closure with no free variables, like makeFoldChar: its source
 * text goes to the index build's worker thread (without `latin1`: runs kept as slices).
 */
export function makeFoldForIndex(
  foldChar: (ch: string) => string,
  latin1?: ((bytes: Uint8Array, length: number) => string) | null
): (text: string) => string {
  /** Folded form of each BMP code unit seen so far (at most 64 Ki entries). */
  const bmp = new Map<number, string>()
  const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff
  const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff
  const foldedAt = (text: string, i: number, c: number): string => {
    if (isHigh(c) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) return foldChar(text.slice(i, i + 2))
    let hit = bmp.get(c)
    if (hit === undefined) {
      hit = foldChar(text[i]!)
      bmp.set(c, hit)
    }
    return hit
  }
  /** The text's folded bytes while every folded character is one Latin-1 byte (given `latin1`). */
  let bytes = new Uint8Array(latin1 ? 1024 : 0)
  /**
   * Folded text whose characters all fold into Latin-1 (nearly all Turkish and Western text),
   * written byte by byte and made one flat string at the end; null when a character does not,
   * or when nothing changed (then `text` itself is the answer: see the caller). Appending a
   * slice and a folded character per changed character made a rope of short strings, the
   * ingest's largest source of garbage (docs/perf-log.md).
   */
  const viaBytes = (text: string): string | null | false => {
    const n = text.length
    if (bytes.length < n) bytes = new Uint8Array(Math.max(n, bytes.length * 2))
    let out = 0
    let changed = false
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i)
      if (c < 0x80) {
        if (c >= 65 && c <= 90) {
          bytes[out++] = c + 32
          changed = true
        } else bytes[out++] = c
        continue
      }
      const folded = foldedAt(text, i, c)
      // A surrogate pair is one character (foldedAt folded both halves).
      if (isHigh(c) && i + 1 < n && isLow(text.charCodeAt(i + 1))) i++
      if (folded.length > 1) return null
      if (folded.length === 1) {
        const f = folded.charCodeAt(0)
        if (f > 0xff) return null
        if (f !== c) changed = true
        bytes[out++] = f
      } else changed = true
    }
    return changed ? latin1!(bytes, out) : false
  }
  return function foldForIndex(text: string): string {
    if (latin1) {
      const fast = viaBytes(text)
      if (fast === false) return text
      if (fast !== null) return fast
    }
    let out = ''
    let kept = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c < 0x80 && (c < 65 || c > 90)) continue
      let folded: string
      let width = 1
      if (c < 0x80) folded = String.fromCharCode(c + 32)
      else {
        folded = foldedAt(text, i, c)
        if (isHigh(c) && i + 1 < text.length && isLow(text.charCodeAt(i + 1))) width = 2
      }
      out += text.slice(kept, i) + folded
      i += width - 1
      kept = i + 1
    }
    return kept === 0 ? text : out + text.slice(kept)
  }
}

/** A Buffer over the folding's byte scratch, made again when the scratch grows. */
let view: Buffer | null = null
/** Bytes as a Latin-1 string: one flat string made in one step. */
function latin1Of(bytes: Uint8Array, length: number): string {
  if (view === null || view.buffer !== bytes.buffer) view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return view.toString('latin1', 0, length)
}

export const foldForIndex = makeFoldForIndex(foldChar, latin1Of)

/**
 * An expression whose value is foldForIndex, for a worker thread's source: both closures'
 * own text (as this bundle holds them), so the worker's folding cannot drift from this one.
 */
export const FOLD_FOR_INDEX_SOURCE = `(${makeFoldForIndex.toString()})((${makeFoldChar.toString()})())`

/** A call's analysis values joined by spaces and folded: the index's `analysis` column. */
export function foldedAnalysis(r: CallRecord): string {
  let s = ''
  for (const a of r.analysis) s += s.length === 0 ? a.value : ` ${a.value}`
  return foldForIndex(s)
}
