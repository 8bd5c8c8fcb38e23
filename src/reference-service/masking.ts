/**
 * Masking of personal data inside free text (title, summary). Written for the service alone:
 * it must not share code with the client, so that each checks the other.
 *
 * E-mail addresses first, then one alternation over numbers: international (+CC… or 00CC…),
 * TCKNs (checked with their checksum; 11-digit runs that fail it are left alone), Turkish
 * numbers with the trunk 0 (05xx, 0 (212), (0212), 0850, 0800), ten-digit national numbers
 * without it (5xx…, 212…, 850…) and 444 short numbers.
 */

export const MASK = '[MASKED]'

const END = String.raw`(?!\p{N})`
const SEP = String.raw`[ .\-]?`
// +CC or 00CC, then 7 to 14 more digits, each optionally wrapped in grouping parentheses.
const INTERNATIONAL = String.raw`(?:\+|00)[1-9](?:[ .\-]?\(?\d\)?){7,14}`
const TCKN = String.raw`(?<tckn>[1-9]\d{10})`
const TRUNK = String.raw`\(?0 ?\(?[2-58]\d{2}\)?${SEP}\d{3}${SEP}\d{2}${SEP}\d{2}`
const NATIONAL = String.raw`\(?[2-58]\d{2}\)?${SEP}\d{3}${SEP}\d{2}${SEP}\d{2}`
const SHORT_444 = String.raw`444${SEP}\d(?:${SEP}\d){3}`

// Candidates are found with a plain character scan and the full pattern is tried only there
// (sticky), instead of letting the alternation start at every character of the text.
const CANDIDATE = /[+(\d]/g
const NUMBER_AT = new RegExp(`(?:${INTERNATIONAL}|${TCKN}|${TRUNK}|${NATIONAL}|${SHORT_444})${END}`, 'uy')
const WORD_CHAR = /[\p{L}\p{N}]/u

// E-mail addresses are found from their "@" outwards: a regex that may start at every letter
// of the text costs twenty times more, and masking runs on every served record.
const LOCAL_CHAR = /[\p{L}\p{N}._%+\-]/u
const DOMAIN_CHAR = /[\p{L}\p{N}.\-]/u
const DOMAIN = /^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.\p{L}{2,}$/u

function maskEmails(text: string): string {
  let at = text.indexOf('@')
  if (at < 0) return text
  let out = ''
  let last = 0
  while (at >= 0) {
    let start = at
    while (start > last && LOCAL_CHAR.test(text[start - 1]!)) start--
    let end = at + 1
    while (end < text.length && DOMAIN_CHAR.test(text[end]!)) end++
    // A sentence may end right after the address.
    while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end--
    if (start < at && DOMAIN.test(text.slice(at + 1, end))) {
      out += text.slice(last, start) + MASK
      last = end
    }
    at = text.indexOf('@', Math.max(at + 1, end))
  }
  return out + text.slice(last)
}

/** True when an 11-digit string satisfies the TCKN rules (first digit not 0, two check digits). */
export function isValidTckn(s: string): boolean {
  if (!/^[1-9]\d{10}$/.test(s)) return false
  const d = Array.from(s, Number) as number[]
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!
  const even = d[1]! + d[3]! + d[5]! + d[7]!
  const d10 = (((odd * 7 - even) % 10) + 10) % 10
  if (d10 !== d[9]) return false
  let sum = 0
  for (let i = 0; i < 10; i++) sum += d[i]!
  return sum % 10 === d[10]
}

function maskNumbers(text: string): string {
  let out = ''
  let last = 0
  CANDIDATE.lastIndex = 0
  for (let m = CANDIDATE.exec(text); m !== null; m = CANDIDATE.exec(text)) {
    const i = m.index
    // A number starts at a word boundary; digits inside a longer word or number are not a start.
    if (i > 0 && WORD_CHAR.test(text[i - 1]!)) continue
    NUMBER_AT.lastIndex = i
    const hit = NUMBER_AT.exec(text)
    if (!hit) continue
    const tckn = hit.groups?.tckn
    CANDIDATE.lastIndex = i + hit[0].length
    // An 11-digit run that fails the TCKN checksum is left as it is.
    if (tckn !== undefined && !isValidTckn(tckn)) continue
    out += text.slice(last, i) + MASK
    last = i + hit[0].length
  }
  return last === 0 ? text : out + text.slice(last)
}

export function maskText(text: string): string {
  return maskNumbers(maskEmails(text))
}
