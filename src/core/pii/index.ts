import type { AnalysisItem, CallRecord } from '../../shared/domain'
import { EMAIL, ELEVEN_DIGITS, FOUR44, INTERNATIONAL, MASK, TURKISH_PHONE, digitCount, isValidTckn } from './detectors'

export { MASK, isValidTckn } from './detectors'

/**
 * Replaces every phone number, e-mail address and checksum-valid TCKN in `text` with
 * "[MASKED]". E-mails go first so their digits are not half-read as phones; TCKNs go last
 * so a phone's eleven digits (0 + ten) are already gone.
 */
export function maskText(text: string): string {
  if (!mayHoldPii(text)) return text
  let out = text.replace(EMAIL, MASK)
  out = out.replace(INTERNATIONAL, (m) => {
    const n = digitCount(m) - (m.startsWith('00') ? 2 : 0)
    return n >= 7 && n <= 15 ? maskBalanced(m) : m
  })
  out = out.replace(TURKISH_PHONE, maskBalanced)
  out = out.replace(FOUR44, maskBalanced)
  out = out.replace(ELEVEN_DIGITS, (m) => (isValidTckn(m) ? MASK : m))
  return out
}

/**
 * Every detector needs an "@" (e-mail) or at least seven digits (the shortest phone form,
 * 444 xx xx). Most texts have neither, and skipping the regexes for them is what keeps the
 * guard off the export's and the sync's hot paths. A new detector must keep this true.
 */
const MIN_DIGITS = 7
function mayHoldPii(text: string): boolean {
  let digits = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 64 /* @ */) return true
    if (c >= 48 && c <= 57 && ++digits >= MIN_DIGITS) return true
  }
  return false
}

const count = (s: string, c: string): number => s.split(c).length - 1

/**
 * The patterns allow "(" and ")" around area codes; a parenthesis that only encloses the
 * whole number ("(0532 123 45 67)") belongs to the sentence and is kept outside the mask.
 */
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

/** True when the text holds anything maskText would mask. */
export function containsPii(text: string): boolean {
  return maskText(text) !== text
}

/** Masks every string inside a JSON-like value; keys are left as they are. */
export function maskDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskText(value)
  if (depth > 32 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = maskDeep(v, depth + 1)
  return out
}

function guardItem(item: AnalysisItem): AnalysisItem {
  return { key: item.key, friendlyName: maskText(item.friendlyName), value: maskText(item.value) }
}

/**
 * The record as it may leave the client layer: title, summary, analysis names and values and
 * every string among the unknown fields masked. callId and callDate are identifiers the spec
 * calls non-sensitive, and stay as served.
 */
export function guardRecord(r: CallRecord): CallRecord {
  return {
    ...r,
    title: maskText(r.title),
    summary: maskText(r.summary),
    analysis: r.analysis.map(guardItem),
    extra: maskDeep(r.extra) as Record<string, unknown>
  }
}
