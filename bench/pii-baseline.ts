/**
 * The PII guard's maskText as it was before the linear-time rewrite (one regex for e-mails, which backtracks
 * quadratically on a long run of letters before an "@"), frozen here as the same-run baseline
 * for bench/pii.ts. Not used by the app.
 */
const MASK = '[MASKED]'
const SEP = '[ \\t.\\-]?'
const EMAIL = /[\p{L}\p{N}._%+\-']+@[\p{L}\p{N}\-]+(?:\.[\p{L}\p{N}\-]+)*\.\p{L}{2,}/gu
const INTERNATIONAL = /(?<![\p{L}\p{N}])(?:\+|00)[ \t]?[1-9](?:[ \t.\-]?\(?\d\)?){5,17}(?!\d)/gu
const TR_PREFIX = `(?:(?:\\+[ \\t]?|00[ \\t]?)?90${SEP})?(?:\\(?0\\)?${SEP})?`
const TR_GEO =
  '2(?:1[26]|2[2468]|3[26]|4[268]|5[268]|6[246]|7[246]|8[2468])|3(?:1[28]|2[2468]|3[28]|4[2468]|5[2468]|6[2468]|7[02468]|8[02468])|4(?:1[246]|2[2468]|3[2468]|4[26]|5[2468]|6[246]|7[2468]|8[2468])'
const TR_AREA = `\\(?(?:5[0-6]\\d|${TR_GEO}|8[05]0|900)\\)?`
const TR_SUB = `\\d{3}${SEP}(?:\\d{2}${SEP}\\d{2}|\\d{4})`
const TURKISH_PHONE = new RegExp(`(?<![\\p{L}\\p{N}+])${TR_PREFIX}${TR_AREA}${SEP}${TR_SUB}(?!\\d)`, 'gu')
const FOUR44 = new RegExp(`(?<![\\p{L}\\p{N}])(?:0${SEP})?444${SEP}\\d(?:${SEP}\\d){3}(?!\\d)`, 'gu')
const ELEVEN_DIGITS = /(?<!\d)[1-9]\d{10}(?!\d)/g

function isValidTckn(s: string): boolean {
  if (!/^[1-9]\d{10}$/.test(s)) return false
  const d = [...s].map(Number)
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!
  const even = d[1]! + d[3]! + d[5]! + d[7]!
  if ((((odd * 7 - even) % 10) + 10) % 10 !== d[9]) return false
  return d.slice(0, 10).reduce((a, b) => a + b, 0) % 10 === d[10]
}

function digitCount(s: string): number {
  let n = 0
  for (const c of s) if (c >= '0' && c <= '9') n++
  return n
}

function mayHoldPii(text: string): boolean {
  let digits = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 64) return true
    if (c >= 48 && c <= 57 && ++digits >= 7) return true
  }
  return false
}

const count = (s: string, c: string): number => s.split(c).length - 1
function maskBalanced(m: string): string {
  let lead = ''
  let trail = ''
  let core = m
  while (core.startsWith('(') && count(core, '(') > count(core, ')')) {
    lead += '('
    core = core.slice(1)
  }
  while (core.endsWith(')') && count(core, ')') > count(core, '(')) {
    trail += ')'
    core = core.slice(0, -1)
  }
  return `${lead}${MASK}${trail}`
}

export function baselineMaskText(text: string): string {
  if (!mayHoldPii(text)) return text
  let out = text.replace(EMAIL, MASK)
  out = out.replace(INTERNATIONAL, (m) => {
    const n = digitCount(m) - (m.startsWith('00') ? 2 : 0)
    return n >= 7 && n <= 15 ? maskBalanced(m) : m
  })
  out = out.replace(TURKISH_PHONE, maskBalanced)
  out = out.replace(FOUR44, maskBalanced)
  return out.replace(ELEVEN_DIGITS, (m) => (isValidTckn(m) ? MASK : m))
}
