/**
 * Pattern detectors for the personal data the service promises to mask. They run as
 * defense in depth, so they lean towards masking: a false positive hides a harmless number,
 * a miss leaks a person's phone, e-mail or identity number.
 */

export const MASK = '[MASKED]'

const SEP = '[ \\t.\\-]?'

/** name@domain.tld, Unicode letters allowed (Turkish addresses use them). */
export const EMAIL = /[\p{L}\p{N}._%+\-']+@[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)*\.\p{L}{2,}/gu

/**
 * International forms: "+" or "00" then a country code, then digits with the usual
 * separators and parentheses. The digit count (7..15, the E.164 range) is checked afterwards.
 */
export const INTERNATIONAL = /(?<![\p{L}\p{N}])(?:\+|00)[ \t]?[1-9](?:[ \t.\-]?\(?\d\)?){5,17}(?!\d)/gu

/**
 * Turkish numbers: optional +90 / 0090 / 90 / 0 / (0) prefix, a three-digit code (mobile
 * 5xx, geographic 2xx-4xx, 850/800/900 service numbers), then seven digits as 3-2-2, 3-4 or 7.
 */
const TR_PREFIX = `(?:(?:\\+[ \\t]?|00[ \\t]?)?90${SEP})?(?:\\(?0\\)?${SEP})?`
// Geographic codes are the real list, so invoice numbers like 2024123456 are not read as phones.
const TR_GEO =
  '2(?:1[26]|2[2468]|3[26]|4[268]|5[268]|6[246]|7[246]|8[2468])|3(?:1[28]|2[2468]|3[28]|4[2468]|5[2468]|6[2468]|7[02468]|8[02468])|4(?:1[246]|2[2468]|3[2468]|4[26]|5[2468]|6[246]|7[2468]|8[2468])'
const TR_AREA = `\\(?(?:5[0-6]\\d|${TR_GEO}|8[05]0|900)\\)?`
const TR_SUB = `\\d{3}${SEP}(?:\\d{2}${SEP}\\d{2}|\\d{4})`
export const TURKISH_PHONE = new RegExp(`(?<![\\p{L}\\p{N}+])${TR_PREFIX}${TR_AREA}${SEP}${TR_SUB}(?!\\d)`, 'gu')

/** 444 numbers: 444 plus four digits, grouped any way ("444 0 444", "444 12 34", "4441234"). */
export const FOUR44 = new RegExp(`(?<![\\p{L}\\p{N}])(?:0${SEP})?444${SEP}\\d(?:${SEP}\\d){3}(?!\\d)`, 'gu')

/** Eleven digits, not starting with 0; masked only when the TCKN checksum holds. */
export const ELEVEN_DIGITS = /(?<!\d)[1-9]\d{10}(?!\d)/g

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
