/**
 * Search folding that is right for Turkish. SQLite's unicode61 never folds "ı" and folds
 * "İ" only by dropping its dot, so the full-text index is built on text folded here, and
 * queries are folded the same way. The renderer uses the same code to highlight hits.
 *
 * Every code point folds to at most one code point, so a folded string maps back onto the
 * original position by position (see foldWithMap), which is what highlighting needs.
 */

/**
 * foldChar, built by a closure with no free variables: a worker thread is given this
 * function's source text (Function.prototype.toString) and folds exactly as this thread does
 * (the first bulk pull's index build, src/core/cache/ingest/deferred-index.ts).
 */
export function makeFoldChar(): (ch: string) => string {
  const SPECIAL: Record<string, string> = {
    İ: 'i',
    I: 'i',
    ı: 'i',
    i: 'i',
    ß: 's',
    ø: 'o',
    Ø: 'o',
    đ: 'd',
    Đ: 'd',
    ł: 'l',
    Ł: 'l',
    æ: 'a',
    Æ: 'a',
    œ: 'o',
    Œ: 'o'
  }
  const MARKS = /\p{M}/gu
  const cache = new Map<string, string>()
  /** Folds one code point: case, Turkish dotted/dotless i, and diacritics. '' for a lone mark. */
  return function foldChar(ch: string): string {
    const special = SPECIAL[ch]
    if (special !== undefined) return special
    const code = ch.codePointAt(0) ?? 0
    if (code < 0x80) return code >= 0x41 && code <= 0x5a ? String.fromCharCode(code + 32) : ch
    const hit = cache.get(ch)
    if (hit !== undefined) return hit
    // Lower-casing outside the Turkish locale is deliberate: I and İ are handled above.
    const folded = ch.toLowerCase().normalize('NFD').replace(MARKS, '')
    const one = folded.length === 0 ? '' : String.fromCodePoint(folded.codePointAt(0) ?? 0)
    if (cache.size < 4096) cache.set(ch, one)
    return one
  }
}

/** Folds one code point: case, Turkish dotted/dotless i, and diacritics. '' for a lone mark. */
export const foldChar = makeFoldChar()

export function foldText(text: string): string {
  // Fast path for plain ASCII, the common case in ids and many summaries.
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase()
  let out = ''
  for (const ch of text) out += foldChar(ch)
  return out
}

/** The folded text and, for each of its UTF-16 units, the index of its source in `text`. */
export function foldWithMap(text: string): { folded: string; map: number[] } {
  let folded = ''
  const map: number[] = []
  let i = 0
  for (const ch of text) {
    const f = foldChar(ch)
    for (let k = 0; k < f.length; k++) map.push(i)
    folded += f
    i += ch.length
  }
  map.push(text.length)
  return { folded, map }
}

/** Word characters for tokenizing, after folding: letters and digits of any script. */
const TOKEN = /[\p{L}\p{N}]+/gu

/** The terms of a query after folding, in order, without duplicates. */
export function queryTerms(query: string): string[] {
  const seen = new Set<string>()
  for (const m of foldText(query).matchAll(TOKEN)) seen.add(m[0])
  return [...seen]
}

export interface TextSegment {
  text: string
  kind: 'plain' | 'hit' | 'masked'
}

export const MASK_TOKEN = '[MASKED]'

/**
 * Splits raw text into plain runs, search hits (prefix matches of the folded terms at the
 * start of a word) and [MASKED] tokens, for rendering as text nodes — never as HTML.
 */
export function segmentText(raw: string, terms: readonly string[]): TextSegment[] {
  const marks: Array<{ start: number; end: number; kind: 'hit' | 'masked' }> = []
  let at = raw.indexOf(MASK_TOKEN)
  while (at !== -1) {
    marks.push({ start: at, end: at + MASK_TOKEN.length, kind: 'masked' })
    at = raw.indexOf(MASK_TOKEN, at + MASK_TOKEN.length)
  }
  if (terms.length > 0) {
    const { folded, map } = foldWithMap(raw)
    for (const m of folded.matchAll(TOKEN)) {
      const word = m[0]
      const term = terms.find((t) => t.length > 0 && word.startsWith(t))
      if (!term) continue
      const start = map[m.index] ?? 0
      const end = map[m.index + term.length] ?? raw.length
      if (!marks.some((k) => k.kind === 'masked' && start < k.end && end > k.start)) marks.push({ start, end, kind: 'hit' })
    }
  }
  marks.sort((a, b) => a.start - b.start)
  const out: TextSegment[] = []
  let pos = 0
  for (const m of marks) {
    if (m.start < pos) continue
    if (m.start > pos) out.push({ text: raw.slice(pos, m.start), kind: 'plain' })
    out.push({ text: raw.slice(m.start, m.end), kind: m.kind })
    pos = m.end
  }
  if (pos < raw.length) out.push({ text: raw.slice(pos), kind: 'plain' })
  return out
}
