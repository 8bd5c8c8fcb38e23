/**
 * E-mail addresses, found by scanning outward from each "@" instead of with one regex. The
 * regex `[local chars]+@domain` is tried at every start position, and each try runs along
 * the whole run of letters before it reaches the "@": a 100,000-letter summary with one "@"
 * took 5 s. Here every character is looked at a bounded number of times: the run before an
 * "@" stops at the previous "@" (not a local-part character) or at the end of the previous
 * address, and the run after it stops at the next "@".
 *
 * It finds exactly what the regex `[\p{L}\p{N}\p{M}._%+\-']+@[\p{L}\p{N}\p{M}\-]+(?:\.[\p{L}\p{N}\p{M}\-]+)*\.\p{L}{2,}`
 * finds (leftmost, longest), which the tests check against that regex on short texts.
 */

const LOCAL = /[\p{L}\p{N}\p{M}._%+\-']/u
const DOMAIN = /[\p{L}\p{N}\p{M}\-]/u
const LETTER = /\p{L}/u

/** ASCII answers by table; anything else asks the Unicode property regexes. */
const ASCII_LOCAL = new Uint8Array(128)
const ASCII_DOMAIN = new Uint8Array(128)
const ASCII_LETTER = new Uint8Array(128)
for (let c = 0; c < 128; c++) {
  const ch = String.fromCharCode(c)
  ASCII_LOCAL[c] = LOCAL.test(ch) ? 1 : 0
  ASCII_DOMAIN[c] = DOMAIN.test(ch) ? 1 : 0
  ASCII_LETTER[c] = LETTER.test(ch) ? 1 : 0
}

function is(text: string, at: number, width: number, ascii: Uint8Array, re: RegExp): boolean {
  const c = text.charCodeAt(at)
  return c < 128 ? ascii[c] === 1 : re.test(text.slice(at, at + width))
}

/** Width (1 or 2 units) of the code point that ends just before `end`. */
function widthBefore(text: string, end: number): number {
  const low = text.charCodeAt(end - 1)
  if (low >= 0xdc00 && low <= 0xdfff && end >= 2) {
    const high = text.charCodeAt(end - 2)
    if (high >= 0xd800 && high <= 0xdbff) return 2
  }
  return 1
}

/** Width of the code point that starts at `at`. */
function widthAt(text: string, at: number): number {
  const high = text.charCodeAt(at)
  return high >= 0xd800 && high <= 0xdbff && at + 1 < text.length ? 2 : 1
}

/** Where the address whose "@" is at `at` ends, or -1: the longest `label(.label)*.letters`. */
function domainEnd(text: string, at: number): number {
  let i = at + 1
  let labelLength = 0
  let end = -1
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 46 /* . */) {
      // An empty label ends the domain; so does a dot at its start.
      if (labelLength === 0) break
      // Letters right after this dot may close the address (two or more, as many as there are).
      let j = i + 1
      let letters = 0
      while (j < text.length) {
        const w = widthAt(text, j)
        if (!is(text, j, w, ASCII_LETTER, LETTER)) break
        j += w
        letters++
      }
      if (letters >= 2) end = j
      labelLength = 0
      i++
      continue
    }
    const w = widthAt(text, i)
    if (!is(text, i, w, ASCII_DOMAIN, DOMAIN)) break
    labelLength++
    i += w
  }
  return end
}

/** [start, end) of every address, in order, not overlapping. */
export function findEmails(text: string): Array<[number, number]> {
  const found: Array<[number, number]> = []
  let floor = 0
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    if (at < floor) continue
    let start = at
    while (start > floor) {
      const w = widthBefore(text, start)
      if (!is(text, start - w, w, ASCII_LOCAL, LOCAL)) break
      start -= w
    }
    if (start === at) continue
    const end = domainEnd(text, at)
    if (end < 0) continue
    found.push([start, end])
    floor = end
  }
  return found
}
