import type { CallRecord } from '../../shared/domain'
import { guardRecord } from '../pii'

/**
 * A call row of the team cache as a record, checked by hand. A pull decodes every call it
 * applies, ten analysis items each; zod's schemas for the row, the items and the extra
 * fields cost about 3 % of a pull's CPU on top of JSON.parse (--cpu-prof of a 100,000-call
 * pull, docs/team.md). The checks are the same: a malformed row is refused with what is
 * wrong, never stored.
 */
export interface PulledCall {
  record: CallRecord
  hasAnalysis: boolean
}

function bad(what: string): never {
  throw new Error(`The team cache sent a call row with ${what}.`)
}

function text(v: unknown, what: string): string {
  if (typeof v !== 'string') bad(`no text in ${what}`)
  return v
}

/** A bigint column (node-postgres gives text) as a safe whole number. */
function whole(v: unknown, what: string): number {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN
  if (!Number.isSafeInteger(n)) bad(`no whole number in ${what}`)
  return n
}

export function pulledCall(raw: unknown): PulledCall {
  if (typeof raw !== 'object' || raw === null) bad('no columns')
  const row = raw as Record<string, unknown>
  const callId = text(row['call_id'], 'call_id')
  if (callId.length === 0) bad('an empty call_id')
  const analysis = row['analysis']
  const items: CallRecord['analysis'] = []
  if (analysis !== null) {
    const list: unknown = JSON.parse(text(analysis, 'analysis'))
    if (!Array.isArray(list)) bad('analysis that is not a list')
    for (const item of list as unknown[]) {
      if (!Array.isArray(item) || item.length !== 3) bad('an analysis item that is not [key, name, value]')
      const [key, friendlyName, value] = item as unknown[]
      if (typeof key !== 'string' || typeof friendlyName !== 'string' || typeof value !== 'string') bad('an analysis item that is not text')
      items.push({ key, friendlyName, value })
    }
  }
  const extraText = text(row['extra'], 'extra')
  let extra: Record<string, unknown> = {}
  if (extraText !== '{}') {
    const parsed: unknown = JSON.parse(extraText)
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) bad('extra fields that are not an object')
    extra = parsed as Record<string, unknown>
  }
  whole(row['seq'], 'seq')
  // A team cache is written by a worker that masked what the service sent, but a row placed
  // in it by other hands was not: masked again here, as the client masks service records.
  return {
    record: guardRecord({
      callId,
      callAt: whole(row['call_at'], 'call_at'),
      callDate: text(row['call_date'], 'call_date'),
      title: text(row['title'], 'title'),
      summary: text(row['summary'], 'summary'),
      analysis: items,
      extra
    }),
    hasAnalysis: analysis !== null
  }
}

/**
 * The calls of a batch not yet counted by this pull: a call sent ahead with a membership
 * is counted then, and not again when its own batch applies it (unchanged) once more.
 */
export function distinctApplied(calls: ReadonlyArray<PulledCall>, numbered: number, aheadApplied: Set<string>): number {
  let n = numbered
  if (aheadApplied.size > 0) {
    for (let i = 0; i < numbered; i++) if (aheadApplied.delete(calls[i]!.record.callId)) n--
  }
  for (let i = numbered; i < calls.length; i++) {
    const id = calls[i]!.record.callId
    if (!aheadApplied.has(id)) {
      aheadApplied.add(id)
      n++
    }
  }
  return n
}
