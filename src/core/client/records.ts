import { parseCallDate } from '../dates'
import { CallsightError } from '../errors'
import type { AnalysisItem, CallRecord } from '../../shared/domain'
import { MESSAGES } from './error-map'
import { UNKNOWN_FIELD_BOUNDS, checkJsonBounds } from './json-bounds'
import { WireAnalysisItem } from './schemas'

export interface Envelope {
  items: unknown[]
  totalCount: number | null
}

const KNOWN = new Set(['callId', 'callDate', 'title', 'summary', 'analysis'])

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** Reads a member regardless of case: .NET services often serialize PascalCase. */
function member(o: Record<string, unknown>, name: string): unknown {
  if (name in o) return o[name]
  const lower = name.toLowerCase()
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k]
  return undefined
}

function count(v: unknown): number | null {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null
}

/**
 * The list of records and the total, whichever of the known envelopes the service used: a bare
 * array; {totalCount, items}; {result: {totalCount, items}} (ABP's wrapper, with `success`).
 * Anything else is a MalformedResponse.
 */
export function normalizeEnvelope(body: unknown): Envelope {
  if (Array.isArray(body)) return { items: body, totalCount: null }
  if (!isObject(body)) throw new CallsightError('MalformedResponse', MESSAGES.malformed)
  const items = member(body, 'items')
  if (Array.isArray(items)) return { items, totalCount: count(member(body, 'totalCount')) }
  const result = member(body, 'result')
  if (result !== undefined && member(body, 'success') !== false) {
    if (Array.isArray(result)) return { items: result, totalCount: null }
    if (isObject(result)) {
      const inner = member(result, 'items')
      if (Array.isArray(inner)) return { items: inner, totalCount: count(member(result, 'totalCount')) }
    }
  }
  throw new CallsightError('MalformedResponse', MESSAGES.malformed)
}

/** A text field as text. Objects are written as JSON; callers bound them first. */
function text(v: unknown): string {
  if (typeof v === 'string') return v
  if (v === null || v === undefined) return ''
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return JSON.stringify(v)
}

/** Why values nobody declared cannot be kept, or null when they can. */
function unboundedReason(what: string, value: unknown): string | null {
  const check = checkJsonBounds(value, UNKNOWN_FIELD_BOUNDS)
  if (check.ok) return null
  return check.exceeded === 'depth'
    ? `${what} nest deeper than ${UNKNOWN_FIELD_BOUNDS.depth} levels`
    : `${what} are larger than ${UNKNOWN_FIELD_BOUNDS.bytes / 1024} KB`
}

/** The readable analysis items, and whether some were not (then the raw list is kept in extra). */
function analysisOf(v: unknown): { items: AnalysisItem[]; complete: boolean } {
  if (v === null || v === undefined) return { items: [], complete: true }
  if (!Array.isArray(v)) return { items: [], complete: false }
  const items: AnalysisItem[] = []
  let complete = true
  for (const raw of v) {
    const r = WireAnalysisItem.safeParse(raw)
    if (!r.success) complete = false
    else items.push({ key: r.data.key, friendlyName: text(r.data.friendlyName ?? r.data.key), value: text(r.data.value) })
  }
  return { items, complete }
}

export type RecordResult = { ok: true; record: CallRecord } | { ok: false; reason: string }

/**
 * One wire record as a CallRecord (not yet PII-guarded). A record without a usable callId or
 * callDate cannot be cached or deduplicated, so it is reported, never silently dropped.
 */
export function toCallRecord(raw: unknown, zone: string): RecordResult {
  if (!isObject(raw)) return { ok: false, reason: 'the record is not an object' }
  const idRaw = member(raw, 'callId')
  const callId = typeof idRaw === 'string' ? idRaw.trim() : typeof idRaw === 'number' && Number.isFinite(idRaw) ? String(idRaw) : ''
  if (callId === '') return { ok: false, reason: 'the record has no callId' }
  const dateRaw = member(raw, 'callDate')
  if (typeof dateRaw !== 'string' || dateRaw.trim() === '') return { ok: false, reason: 'the record has no callDate' }
  const parsed = parseCallDate(dateRaw, zone)
  if (!parsed.ok) return { ok: false, reason: parsed.reason }
  const rawAnalysis = member(raw, 'analysis')
  const analysis = analysisOf(rawAnalysis)
  const extra: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(raw)) if (!KNOWN.has(k) && !KNOWN.has(caseKnown(k))) extra[k] = v
  // Nothing is dropped: analysis the client cannot read whole stays verbatim beside the rest.
  if (!analysis.complete) extra.analysis = rawAnalysis
  // A value nested thousands deep would fail every later step (the guard, the cache's JSON)
  // on every retry of the page: such a record is malformed, and the page goes on without it.
  const texts = [member(raw, 'title'), member(raw, 'summary')].filter((v) => typeof v === 'object' && v !== null)
  const unbounded =
    unboundedReason("the record's unknown fields", extra) ?? unboundedReason("the record's title and summary objects", texts)
  if (unbounded !== null) return { ok: false, reason: unbounded }
  return {
    ok: true,
    record: {
      callId,
      callAt: parsed.epochMs,
      callDate: dateRaw,
      title: text(member(raw, 'title')),
      summary: text(member(raw, 'summary')),
      analysis: analysis.items,
      extra
    }
  }
}

function caseKnown(k: string): string {
  const lower = k.toLowerCase()
  for (const known of KNOWN) if (known.toLowerCase() === lower) return known
  return k
}
