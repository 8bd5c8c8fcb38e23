/**
 * Pattern detectors for the personal data the service promises to mask. They run as
 * defense in depth, so they lean towards masking: a false positive hides a harmless number,
 * a miss leaks a person's phone, e-mail or identity number.
 */

export const MASK = '[MASKED]'

/**
 * Between digit groups: up to three of space, tab, dot, slash, underscore or a dash (ASCII or
 * Unicode; a non-breaking space has become a space in the detection view by then), so
 * "0532  123 45 67", "0532/123/45/67" and "0532 - 1234567" are read as the numbers they are.
 */
const SEP_CHARS = '[ \\t.\\-/_\\u2010-\\u2015\\u2212]'
const SEP = `${SEP_CHARS}{0,3}`

/**
 * International forms: "+" or "00" then a country code, then digits with the usual
 * separators and parentheses. The digit count (7..15, the E.164 range) is checked afterwards.
 */
export const INTERNATIONAL = new RegExp(`(?<![\\p{L}\\p{N}])(?:\\+|00)[ \\t]?[1-9](?:${SEP}\\(?\\d\\)?){5,17}(?!\\d)`, 'gu')

/**
 * Turkish numbers: optional +90 / 0090 / 90 / 0 / (0) prefix, a three-digit code (mobile
 * 5xx, geographic 2xx-4xx, 850/800/900 service numbers), then seven digits grouped the ways
 * people write them: 3-2-2, 2-2-3 and 3-1-3, any separator optional (so 3-4, 4-3, 5-2 and 7
 * too). A seven-digit tail that starts with a lone digit ("4 6235 67", the end of an IBAN)
 * is not a phone.
 */
const TR_PREFIX = `(?:(?:\\+[ \\t]?|00[ \\t]?)?90${SEP})?(?:\\(?0\\)?${SEP})?`
// Geographic codes are the real list, so invoice numbers like 2024123456 are not read as phones.
const TR_GEO =
  '2(?:1[26]|2[2468]|3[26]|4[268]|5[268]|6[246]|7[246]|8[2468])|3(?:1[28]|2[2468]|3[28]|4[2468]|5[2468]|6[2468]|7[02468]|8[02468])|4(?:1[246]|2[2468]|3[2468]|4[26]|5[2468]|6[246]|7[2468]|8[2468])'
const TR_AREA = `\\(?(?:5[0-6]\\d|${TR_GEO}|8[05]0|900)\\)?`
const TR_SUB = `(?:\\d{3}${SEP}\\d{2}${SEP}\\d{2}|\\d{2}${SEP}\\d{2}${SEP}\\d{3}|\\d{3}${SEP}\\d${SEP}\\d{3})`
export const TURKISH_PHONE = new RegExp(`(?<![\\p{L}\\p{N}+])${TR_PREFIX}${TR_AREA}${SEP}${TR_SUB}(?!\\d)`, 'gu')

/** 444 numbers: 444 plus four digits, grouped any way ("444 0 444", "444 12 34", "4441234"). */
export const FOUR44 = new RegExp(`(?<![\\p{L}\\p{N}])(?:0${SEP})?444${SEP}\\d(?:${SEP}\\d){3}(?!\\d)`, 'gu')

/** The separators of SEP_CHARS, as char codes, for the scanners that do not use a regex. */
export function isSeparator(c: number): boolean {
  return c === 32 || c === 9 || c === 46 || c === 45 || c === 47 || c === 95 || (c >= 0x2010 && c <= 0x2015) || c === 0x2212
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57

/**
 * Eleven digits, not starting with 0, together or grouped with single separators
 * ("100 000 001 46"), that pass the TCKN checksum: [start, end) of each, in order. Every
 * group start is a candidate, so a failed checksum at "5 100 000 001 4" does not hide the
 * number that starts one group later.
 *
 * One pass, no allocation per character: the last eleven digits of the current run (digits
 * joined by at most one separator) are kept in a ring, and each digit that ends a group
 * closes the candidate that began eleven digits earlier. A lookahead regex did the same in
 * 90 ms on "1 1 1 ..." of 100 KB, allocating a match per group.
 */
export function findTckns(text: string): Array<[number, number]> {
  const out: Array<[number, number]> = []
  // Each digit is written twice, at head and head + 11, so the eleven from the oldest on are
  // always value[head .. head + 10], without wrapping around.
  const value = new Int8Array(22)
  const at = new Int32Array(11)
  const startsGroup = new Uint8Array(11)
  let held = 0 // digits in the ring, at most 11
  let head = 0 // where the next digit goes
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (!isDigit(c)) {
      // A single separator between two digits keeps the run going; anything else ends it.
      const joins = held > 0 && isSeparator(c) && i + 1 < text.length && isDigit(text.charCodeAt(i + 1))
      if (!joins) held = 0
      continue
    }
    value[head] = value[head + 11] = c - 48
    at[head] = i
    startsGroup[head] = i === 0 || !isDigit(text.charCodeAt(i - 1)) ? 1 : 0
    head = (head + 1) % 11
    if (held < 11) held++
    if (held < 11) continue
    // head now points at the oldest of the eleven: the candidate's first digit.
    if (startsGroup[head] === 0 || value[head] === 0) continue
    if (i + 1 < text.length && isDigit(text.charCodeAt(i + 1))) continue
    if (!checksumHolds(value, head)) continue
    out.push([at[head]!, i + 1])
    held = 0 // the next candidate starts after this number
  }
  return out
}

/** The TCKN checksum over the eleven digits d[f .. f + 10]. */
function checksumHolds(d: Int8Array, f: number): boolean {
  const odd = d[f]! + d[f + 2]! + d[f + 4]! + d[f + 6]! + d[f + 8]!
  const even = d[f + 1]! + d[f + 3]! + d[f + 5]! + d[f + 7]!
  if ((((odd * 7 - even) % 10) + 10) % 10 !== d[f + 9]) return false
  return (odd + even + d[f + 9]!) % 10 === d[f + 10]
}

export function isValidTckn(s: string): boolean {
  if (!/^[1-9]\d{10}$/.test(s)) return false
  const d = [...s].map(Number) as number[]
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!
  const even = d[1]! + d[3]! + d[5]! + d[7]!
  const tenth = (((odd * 7 - even) % 10) + 10) % 10
  if (tenth !== d[9]) return false
  const sum = d.slice(0, 10).reduce((a, b) => a + b, 0)
  return sum % 10 === d[10]
}

export function digitCount(s: string): number {
  let n = 0
  for (const c of s) if (c >= '0' && c <= '9') n++
  return n
}
