import type { AnalysisItem, CallRecord } from '../../shared/domain'
import { FOUR44, INTERNATIONAL, MASK, TURKISH_PHONE, digitCount, findTckns } from './detectors'
import { findEmails } from './email'
import { READS_AT, READS_OTHER, detectionView, originalRange, triggerTable } from './normalize'

export { MASK, isValidTckn } from './detectors'

/** Deeper than any real record nests; also the bound the client puts on unknown fields. */
export const MAX_GUARD_DEPTH = 32

type Span = [number, number]

/**
 * Stands in for a found span while the later detectors run: one unit per unit, so offsets
 * stay those of the view. A private-use character, neither letter nor digit nor "+", so it
 * bounds a neighbouring number the way "[MASKED]" did.
 */
const HOLE = '\uE000'

/**
 * Replaces every phone number, e-mail address and checksum-valid TCKN in `text` with
 * "[MASKED]". The detectors read the text normalized (NFKC, invisible format characters
 * removed; see normalize.ts) and the masks land on the original. E-mails go first so their
 * digits are not half-read as phones; TCKNs go last so a phone's eleven digits (0 + ten) are
 * already gone. Linear in the text's length: no detector backtracks over more than a number.
 */
export function maskText(text: string): string {
  if (!mayHoldPii(text)) return text
  const view = detectionView(text)
  const spans = findPii(view.text)
  if (spans.length === 0) return text
  let out = ''
  let at = 0
  for (const [s, e] of spans) {
    const [from, to] = originalRange(view, s, e)
    out += text.slice(at, from) + MASK
    at = to
  }
  return out + text.slice(at)
}

function findPii(t: string): Span[] {
  const spans: Span[] = []
  let work = t
  const cover = (found: Span[]): void => {
    if (found.length === 0) return
    let next = ''
    let at = 0
    for (const [s, e] of found) {
      spans.push([s, e])
      next += work.slice(at, s) + HOLE.repeat(e - s)
      at = e
    }
    work = next + work.slice(at)
  }
  cover(findEmails(work))
  cover(
    matches(work, INTERNATIONAL, (m) => {
      const n = digitCount(m) - (m.startsWith('00') ? 2 : 0)
      return n >= 7 && n <= 15
    })
  )
  cover(matches(work, TURKISH_PHONE))
  cover(matches(work, FOUR44))
  cover(findTckns(work))
  return spans.sort((a, b) => a[0] - b[0])
}

/** The accepted matches of a global regex, without a sentence's parentheses around them. */
function matches(text: string, re: RegExp, accept: (m: string) => boolean = () => true): Span[] {
  const out: Span[] = []
  for (const m of text.matchAll(re)) {
    if (!accept(m[0])) continue
    const [lead, trail] = enclosing(m[0])
    out.push([m.index + lead, m.index + m[0].length - trail])
  }
  return out
}

/**
 * Every detector needs an "@" (e-mail) or at least seven digits (the shortest phone form,
 * 444 xx xx), counting the characters that normalize to them (full-width digits, "＠").
 * Most texts have neither, and skipping the detectors for them is what keeps the guard off
 * the export's and the sync's hot paths. A new detector must keep this true.
 */
const MIN_DIGITS = 7
function mayHoldPii(text: string): boolean {
  const reads = triggerTable()
  let digits = 0
  for (let i = 0; i < text.length; i++) {
    const r = reads[text.charCodeAt(i)]
    if (r === READS_OTHER) continue
    if (r === READS_AT || ++digits >= MIN_DIGITS) return true
  }
  return false
}

const count = (s: string, c: string): number => s.split(c).length - 1

/**
 * The patterns allow "(" and ")" around area codes; a parenthesis that only encloses the
 * whole number ("(0532 123 45 67)") belongs to the sentence and is kept outside the mask.
 * Returns how many characters to keep at the start and at the end.
 */
function enclosing(m: string): [number, number] {
  let lead = 0
  let trail = 0
  let core = m
  while (core.startsWith('(') && count(core, '(') > count(core, ')')) {
    lead++
    core = core.slice(1)
  }
  while (core.endsWith(')') && count(core, ')') > count(core, '(')) {
    trail++
    core = core.slice(0, -1)
  }
  return [lead, trail]
}

/** True when the text holds anything maskText would mask. */
export function containsPii(text: string): boolean {
  return maskText(text) !== text
}

/**
 * Masks everything inside a JSON-like value: strings, numbers that read as personal data
 * (`"callerNumber": 905321234567`, `"nationalId": 10000000146`) and object keys (a key can
 * be an e-mail address). Anything nested deeper than MAX_GUARD_DEPTH is replaced whole by
 * "[MASKED]": a value the guard does not read must not pass.
 */
export function maskDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return maskText(value)
  if (typeof value === 'number') {
    const text = String(value)
    return maskText(text) === text ? value : MASK
  }
  if (value === null || typeof value !== 'object') return value
  if (depth > MAX_GUARD_DEPTH) return MASK
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    let key = maskText(k)
    // Two keys masked to the same text keep both values.
    for (let n = 2; key !== k && key in out; n++) key = `${MASK} ${n}`
    out[key] = maskDeep(v, depth + 1)
  }
  return out
}

function guardItem(item: AnalysisItem): AnalysisItem {
  return { key: item.key, friendlyName: maskText(item.friendlyName), value: maskText(item.value) }
}

/**
 * The record as it may leave the client layer: title, summary, analysis names and values and
 * everything among the unknown fields masked. callId and callDate are identifiers the spec
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
