import { foldText } from '../text/fold'
import type { Bound, ResolvedNode, TextField } from './ast'
import { tokensOf } from './parse'

/**
 * The language evaluated on one call in memory: the reference the SQL is tested against
 * (same ids on the same cache), and what the renderer uses to say where a row matched.
 * Text terms follow the index: title, summary and the analysis values joined by spaces are
 * three columns of folded tokens; a word is a prefix of a token, a phrase consecutive tokens
 * of one column, the last one a prefix when typed as a word.
 */

export interface EvalItem {
  key: string
  value: string
}

export interface EvalCall {
  title: string
  summary: string
  analysis: readonly EvalItem[]
  /** Text of fields outside the index (notes), by field. */
  extra?: Partial<Record<TextField, string>>
}

/** The numeric reading of a value as the cache stores it (core's parseNumeric). */
export type NumberReader = (value: string) => number | null

function hasPhrase(column: readonly string[], tokens: readonly string[], prefix: boolean): boolean {
  const n = tokens.length
  for (let i = 0; i + n <= column.length; i++) {
    let ok = true
    for (let k = 0; k < n && ok; k++) {
      const word = column[i + k]!
      ok = k === n - 1 && prefix ? word.startsWith(tokens[k]!) : word === tokens[k]
    }
    if (ok) return true
  }
  return false
}

const within = (x: number, min: Bound | null, max: Bound | null): boolean =>
  (min === null || (min.strict ? x > min.value : x >= min.value)) && (max === null || (max.strict ? x < max.value : x <= max.value))

/** One call's folded columns, computed once per call. */
export class CallText {
  private readonly columns = new Map<string, string[]>()

  constructor(readonly call: EvalCall) {}

  column(field: TextField | 'analysis'): string[] {
    let c = this.columns.get(field)
    if (!c) {
      const raw =
        field === 'analysis'
          ? this.call.analysis.map((a) => a.value).join(' ')
          : field === 'note'
            ? (this.call.extra?.note ?? '')
            : this.call[field]
      c = tokensOf(raw)
      this.columns.set(field, c)
    }
    return c
  }
}

export function evaluate(node: ResolvedNode, call: CallText, num: NumberReader): boolean {
  switch (node.kind) {
    case 'text': {
      const fields: Array<TextField | 'analysis'> = node.field ? [node.field] : ['title', 'summary', 'analysis']
      return fields.some((f) => hasPhrase(call.column(f), node.tokens, node.prefix))
    }
    case 'equals':
      return call.call.analysis.some((a) => a.key === node.key && foldText(a.value) === node.folded)
    case 'range':
      return call.call.analysis.some((a) => {
        if (a.key !== node.key) return false
        const x = num(a.value)
        return x !== null && within(x, node.min, node.max)
      })
    case 'and':
      return node.items.every((n) => evaluate(n, call, num))
    case 'or':
      return node.items.some((n) => evaluate(n, call, num))
    case 'not':
      return !evaluate(node.item, call, num)
  }
}

/** The terms that made a call match, not under a NOT: what highlighting marks. */
export function positiveTerms(node: ResolvedNode | null): string[] {
  const out = new Set<string>()
  const walk = (n: ResolvedNode): void => {
    switch (n.kind) {
      case 'text':
        for (const t of n.tokens) out.add(t)
        break
      case 'equals':
        for (const t of tokensOf(n.value)) out.add(t)
        break
      case 'and':
      case 'or':
        n.items.forEach(walk)
        break
      default:
        break
    }
  }
  if (node) walk(node)
  return [...out]
}

/** Tokens of values met, up to TOKENS_KEPT, then started over. */
const tokensKept = new Map<string, readonly string[]>()
const TOKENS_KEPT = 4096

function valueTokens(value: string): readonly string[] {
  let t = tokensKept.get(value)
  if (t === undefined) {
    if (tokensKept.size >= TOKENS_KEPT) tokensKept.clear()
    tokensKept.set(value, (t = tokensOf(value)))
  }
  return t
}

/** One analysis item with the name the UI shows for its key. */
export interface NamedItem {
  key: string
  friendlyName: string
  value: string
}

/**
 * The items of a call that a term of the query (not under a NOT) finds: a word or phrase in
 * the value, the value equal, the number in range. What "matched in" names and the detail
 * highlights. A phrase that only spans two items' values (the index joins them) names neither.
 */
export function matchedItems(node: ResolvedNode | null, items: readonly EvalItem[], num: NumberReader): number[] {
  if (!node) return []
  const hit = new Set<number>()
  // Values repeat from call to call (a page's items hold a few hundred distinct ones).
  const tokens = items.map((a) => valueTokens(a.value))
  const walk = (n: ResolvedNode): void => {
    switch (n.kind) {
      case 'text':
        if (n.field === null) tokens.forEach((t, i) => hasPhrase(t, n.tokens, n.prefix) && hit.add(i))
        break
      case 'equals':
        items.forEach((a, i) => a.key === n.key && foldText(a.value) === n.folded && hit.add(i))
        break
      case 'range':
        items.forEach((a, i) => {
          const x = a.key === n.key ? num(a.value) : null
          if (x !== null && within(x, n.min, n.max)) hit.add(i)
        })
        break
      case 'and':
      case 'or':
        n.items.forEach(walk)
        break
      case 'not':
        break
    }
  }
  walk(node)
  return [...hit].sort((a, b) => a - b)
}

/** The names of the keys whose items a query found, each once, in item order. */
export function matchedIn(node: ResolvedNode | null, items: readonly NamedItem[], num: NumberReader): string[] {
  return [...new Set(matchedItems(node, items, num).map((i) => items[i]!.friendlyName || items[i]!.key))]
}

/** Whether some term of the query (not under a NOT) can be found in an analysis item. */
export function reachesAnalysis(node: ResolvedNode | null): boolean {
  if (!node) return false
  switch (node.kind) {
    case 'text':
      return node.field === null
    case 'equals':
    case 'range':
      return true
    case 'and':
    case 'or':
      return node.items.some(reachesAnalysis)
    case 'not':
      return false
  }
}
