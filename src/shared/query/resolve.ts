import { foldText } from '../text/fold'
import type { Bound, QueryError, QueryNode, ResolvedNode, TextField } from './ast'
import { numberOf, parseQuery, tokensOf } from './parse'
import { step } from './work'
import { callIdOf } from './call-id'
import { splitRecordTerms, type RecordTerm } from './record-terms'

/** An analysis key as the cache knows it (shared/domain's AnalysisKeyInfo, without zod). */
export interface KeyRef {
  key: string
  friendlyName: string
  numeric: boolean
}

export interface ResolveContext {
  keys: readonly KeyRef[]
  /** Text fields this cache can search besides title and summary (`note` once annotations exist). */
  extraFields?: readonly TextField[]
  /** Record fields the service sends beyond the spec's (record-terms.ts): `agent:`, `duration:`. */
  recordFields?: readonly string[]
}

/** Names a field can be written as, in either language; folded, so `Başlık:` works too. */
const TEXT_FIELDS: ReadonlyArray<[TextField, readonly string[]]> = [
  ['title', ['title', 'baslik']],
  ['summary', ['summary', 'ozet']],
  ['note', ['note', 'not', 'notes', 'notlar']]
]

/** A field name as compared: folded, letters and digits only ("Anahtar Kelimeler" → "anahtarkelimeler"). */
export function fieldName(name: string): string {
  return tokensOf(name.replace(/_/g, ' ')).join('')
}

export interface Resolved {
  node: ResolvedNode | null
  errors: QueryError[]
  /** The call ID the whole text names (call-id.ts): the query finds that call. */
  callId?: string
  /** Record-field terms taken out of the text (record-terms.ts), ANDed with the rest. */
  records?: RecordTerm[]
}

/** A key by its key or friendly name, as written in a field term. */
export function keyByName(keys: readonly KeyRef[], name: string): KeyRef | undefined {
  const n = fieldName(name)
  return keys.find((k) => fieldName(k.key) === n) ?? keys.find((k) => fieldName(k.friendlyName) === n)
}

/**
 * Gives every field term its meaning: a text column, or an analysis key by its key or
 * friendly name (Turkish folding, so `duygu:` finds "Duygu" and `anahtar_kelimeler:` finds
 * "Anahtar Kelimeler"). A numeric key compared to a number compares numbers.
 */
export function resolveQuery(node: QueryNode | null, ctx: ResolveContext): Resolved {
  const errors: QueryError[] = []
  const available = new Set<TextField>(['title', 'summary', ...(ctx.extraFields ?? [])])

  const bound = (value: number, strict: boolean): Bound => ({ value, strict })
  // Each name looked up once: a query of many field terms does not fold every key for each.
  const found = new Map<string, KeyRef | undefined>()
  const lookup = (name: string): KeyRef | undefined => {
    if (!found.has(name)) found.set(name, keyByName(ctx.keys, name))
    return found.get(name)
  }

  const walk = (n: QueryNode): ResolvedNode | null => {
    step()
    switch (n.kind) {
      case 'text':
        return { kind: 'text', field: null, tokens: n.tokens, prefix: n.prefix, span: n.span }
      case 'not': {
        const item = walk(n.item)
        return item ? { kind: 'not', item, span: n.span } : null
      }
      case 'and':
      case 'or': {
        const items = n.items.map(walk).filter((x): x is ResolvedNode => x !== null)
        return items.length === n.items.length ? { kind: n.kind, items, span: n.span } : null
      }
      case 'field':
        break
    }
    const name = fieldName(n.name)
    const text = TEXT_FIELDS.find(([, names]) => names.includes(name))
    if (text) {
      const [field] = text
      if (!available.has(field)) {
        errors.push({ code: 'fieldUnavailable', span: n.nameSpan, subject: n.name })
        return null
      }
      if (n.value.kind === 'range' || (n.op !== ':' && n.op !== '=')) {
        errors.push({ code: 'notComparable', span: n.span, subject: n.name })
        return null
      }
      const tokens = tokensOf(n.value.raw)
      if (tokens.length === 0) {
        errors.push({ code: 'missingValue', span: n.span, subject: n.name })
        return null
      }
      return { kind: 'text', field, tokens, prefix: n.value.kind === 'word', span: n.span }
    }
    const key = lookup(n.name)
    if (!key) {
      errors.push({ code: 'unknownField', span: n.nameSpan, subject: n.name })
      return null
    }
    const v = n.value
    if (v.kind === 'range') {
      return {
        kind: 'range',
        key: key.key,
        min: v.min === null ? null : bound(v.min, false),
        max: v.max === null ? null : bound(v.max, false),
        span: n.span
      }
    }
    const num = numberOf(v.raw)
    switch (n.op) {
      case '>':
      case '>=':
        return { kind: 'range', key: key.key, min: bound(num!, n.op === '>'), max: null, span: n.span }
      case '<':
      case '<=':
        return { kind: 'range', key: key.key, min: null, max: bound(num!, n.op === '<'), span: n.span }
      default:
        if (key.numeric && num !== null && v.kind === 'word') {
          return { kind: 'range', key: key.key, min: bound(num, false), max: bound(num, false), span: n.span }
        }
        return { kind: 'equals', key: key.key, value: v.raw, folded: foldText(v.raw), span: n.span }
    }
  }

  return { node: node ? walk(node) : null, errors }
}

/** Parse and resolve in one step; the errors of both, in text order. */
export function analyzeQuery(text: string, ctx: ResolveContext): Resolved {
  const callId = callIdOf(text)
  if (callId !== null) return { node: null, errors: [], callId }
  const split = splitRecordTerms(text, ctx.recordFields ?? [], ctx.keys)
  if (split.terms.length > 0) return { ...analyzeQuery(split.text, { ...ctx, recordFields: [] }), records: split.terms }
  const parsed = parseQuery(text)
  const resolved = resolveQuery(parsed.node, ctx)
  const errors = [...parsed.errors, ...resolved.errors].sort((a, b) => a.span.start - b.span.start)
  return { node: errors.length ? null : resolved.node, errors }
}
