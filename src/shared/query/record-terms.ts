import type { QueryNode } from './ast'
import { numberOf, parseQuery } from './parse'
import { fieldName, keyByName, type KeyRef } from './resolve'

/**
 * Record fields beyond the spec's five (agent, duration, language: whatever the service sends
 * in `extra`) named in the query language: `agent:"Hakan Çınar"`, `duration:60..300`. They
 * are conditions on the record, not on the text index, so they are taken out of the text
 * (their span blanked, so other errors keep their place) and become field filters, ANDed
 * with the rest. Only a term ANDed at the top of the query is one; under OR or NOT it stays
 * a field term, and an unknown name is reported as before.
 */
export type RecordTerm =
  { kind: 'equals'; field: string; value: string } | { kind: 'range'; field: string; min: number | null; max: number | null }

/** Text field names: these never name a record field. */
const TEXT_NAMES = new Set(['title', 'baslik', 'summary', 'ozet', 'note', 'not', 'notes', 'notlar', 'id'])

/** A record field by its name as typed: the field itself, or without a unit suffix (`agent` for agentName). */
export function recordFieldOf(name: string, fields: readonly string[]): string | undefined {
  const n = fieldName(name)
  const short = (f: string): string => fieldName(f).replace(/(name|seconds|secs|id|code)$/, '')
  return fields.find((f) => fieldName(f) === n) ?? fields.find((f) => short(f) === n && n.length >= 2)
}

/** Whether the text can hold a record term at all (a field operator): else the fields need not be known. */
export function mayHoldRecordTerms(text: string): boolean {
  return /[:=<>]/.test(text)
}

/** The record terms of the text, and the text without them. */
export function splitRecordTerms(text: string, fields: readonly string[], keys: readonly KeyRef[]): { text: string; terms: RecordTerm[] } {
  if (fields.length === 0 || !mayHoldRecordTerms(text)) return { text, terms: [] }
  const { node, errors } = parseQuery(text)
  if (!node || errors.length > 0) return { text, terms: [] }
  const top: QueryNode[] = node.kind === 'and' ? node.items : [node]
  const terms: RecordTerm[] = []
  let out = text
  for (const n of top) {
    if (n.kind !== 'field') continue
    const name = fieldName(n.name)
    if (TEXT_NAMES.has(name) || keyByName(keys, n.name)) continue
    const field = recordFieldOf(n.name, fields)
    if (!field) continue
    const term = termOf(n, field)
    if (!term) continue
    terms.push(term)
    out = out.slice(0, n.span.start) + ' '.repeat(n.span.end - n.span.start) + out.slice(n.span.end)
  }
  return { text: terms.length ? out : text, terms }
}

function termOf(n: Extract<QueryNode, { kind: 'field' }>, field: string): RecordTerm | null {
  const v = n.value
  if (v.kind === 'range') return { kind: 'range', field, min: v.min, max: v.max }
  if (n.op === ':' || n.op === '=') return { kind: 'equals', field, value: v.raw }
  const num = numberOf(v.raw)
  if (num === null) return null
  // Values are compared inclusively; a strict bound on whole numbers (durations, counts) is the next one.
  if (n.op === '>=') return { kind: 'range', field, min: num, max: null }
  if (n.op === '<=') return { kind: 'range', field, min: null, max: num }
  if (!Number.isInteger(num)) return null
  return n.op === '>' ? { kind: 'range', field, min: num + 1, max: null } : { kind: 'range', field, min: null, max: num - 1 }
}
