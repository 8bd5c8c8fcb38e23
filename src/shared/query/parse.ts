import { foldText } from '../text/fold'
import type { FieldOp, FieldValue, QueryError, QueryErrorCode, QueryNode, Span } from './ast'
import { step } from './work'

/**
 * The search language, parsed by hand (recursive descent) so every error carries the span to
 * underline and no input can throw:
 *
 *   query  := or
 *   or     := and (OR and)*                    OR: or | veya | "|"
 *   and    := unary ([AND] unary)*            AND: and | ve; implicit between terms
 *   unary  := ("-" | NOT) unary | atom        NOT: not | değil
 *   atom   := "(" or ")" | "phrase" | word | name(":"|"="|">="|"<="|">"|"<")value
 *   name   := word | "phrase"                  `"duygu durumu":negative`
 *
 * Words are prefixes (as the user types, and as highlighting shows them); a quoted phrase is
 * exact. The operator words are operators in any case and in both languages (an analyst
 * types `veya` or `or` as readily as `OR`); to search for one of those words itself it is
 * quoted ("ve"). A field needs a name starting with a letter, so "10:30" stays words. An
 * unclosed quote runs to the end (typing a phrase is not an error on the way); an unclosed
 * parenthesis is.
 *
 * The work is linear in the text: every loop consumes a lexeme, a run of NOTs is read in a
 * loop (not one call per NOT), and only parentheses recurse, at most MAX_DEPTH deep. The tree
 * is capped at MAX_NODES nodes (tooComplex), so whatever walks it later (resolve, core's SQL
 * and bitmap compilers, the renderer's evaluator) has a bounded tree to walk.
 */

/** Token characters after folding: the classes unicode61 keeps. */
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu
const FIELD = /^([\p{L}_][\p{L}\p{N}_]*)(>=|<=|:|=|>|<)(.*)$/su
const NUMBER = /^[+-]?(?:\d+(?:[.,]\d+)?|[.,]\d+)$/
const RANGE = /^([^.]*(?:[.,]\d+)?)?\.\.(.*)$/s
const MAX_DEPTH = 40
/**
 * Terms and operators a query may have. A typed query has a few dozen; 500 characters of
 * one-letter words hold about 250. Past this the query is refused rather than compiled.
 */
export const MAX_NODES = 200

export function tokensOf(raw: string): string[] {
  return [...foldText(raw).matchAll(TOKEN)].map((m) => m[0])
}

/** A number as typed, dot or Turkish decimal comma; null when it is not one. */
export function numberOf(raw: string): number | null {
  const s = raw.trim()
  if (!NUMBER.test(s)) return null
  const n = Number(s.replace(',', '.'))
  return Number.isFinite(n) ? n : null
}

type Lexeme =
  | { t: '(' | ')' | 'OR' | 'AND' | 'NOT' | '-'; span: Span }
  | { t: 'phrase'; raw: string; span: Span }
  | { t: 'word'; raw: string; span: Span }
  | { t: 'field'; name: string; nameSpan: Span; op: FieldOp; value: string | null; valueSpan: Span; span: Span; quoted: boolean }

const isSpace = (ch: string): boolean => /\s/u.test(ch)

/** The operator words, folded (so `VEYA`, `Veya` and `veya`, `DEĞİL` and `degil` are one). */
const OPERATOR_WORDS: ReadonlyMap<string, 'OR' | 'AND' | 'NOT'> = new Map([
  ['or', 'OR'],
  ['veya', 'OR'],
  ['and', 'AND'],
  ['ve', 'AND'],
  ['not', 'NOT'],
  ['degil', 'NOT']
])
/** Characters that end a word: spaces aside, grouping, quotes and the "|" operator. */
const BREAKS = '()"|'
const OP_AFTER_NAME = /^(>=|<=|:|=|>|<)/

function lex(text: string): Lexeme[] {
  const out: Lexeme[] = []
  let i = 0
  // Where a phrase right after `name:` becomes the field's value.
  let pendingField: Extract<Lexeme, { t: 'field' }> | null = null
  while (i < text.length) {
    step()
    const ch = text[i]!
    if (isSpace(ch)) {
      pendingField = null
      i++
      continue
    }
    if (ch === '(' || ch === ')' || ch === '|') {
      out.push({ t: ch === '|' ? 'OR' : ch, span: { start: i, end: i + 1 } })
      pendingField = null
      i++
      continue
    }
    if (ch === '"') {
      const close = text.indexOf('"', i + 1)
      const end = close === -1 ? text.length : close + 1
      const raw = text.slice(i + 1, close === -1 ? text.length : close)
      const op: RegExpExecArray | null = close === -1 || pendingField ? null : OP_AFTER_NAME.exec(text.slice(end))
      if (op && /^\s*\p{L}/u.test(raw)) {
        // A quoted name before an operator: a field whose name has spaces.
        const opText: string = op[1]!
        const valueStart: number = end + opText.length
        let valueEnd: number = valueStart
        while (valueEnd < text.length && !isSpace(text[valueEnd]!) && !BREAKS.includes(text[valueEnd]!)) valueEnd++
        const field: Extract<Lexeme, { t: 'field' }> = {
          t: 'field',
          name: raw.trim(),
          nameSpan: { start: i, end },
          op: opText as FieldOp,
          value: valueEnd === valueStart ? null : text.slice(valueStart, valueEnd),
          valueSpan: { start: valueStart, end: valueEnd },
          span: { start: i, end: valueEnd },
          quoted: false
        }
        out.push(field)
        pendingField = valueEnd === valueStart && text[valueEnd] === '"' ? field : null
        i = valueEnd
        continue
      }
      if (pendingField) {
        pendingField.value = raw
        pendingField.valueSpan = { start: i, end }
        pendingField.span = { start: pendingField.span.start, end }
        pendingField.quoted = true
      } else out.push({ t: 'phrase', raw, span: { start: i, end } })
      pendingField = null
      i = end
      continue
    }
    // A minus that starts a term negates it; elsewhere (inside a word, alone) it is punctuation.
    if (ch === '-' && i + 1 < text.length && !isSpace(text[i + 1]!) && text[i + 1] !== ')' && text[i + 1] !== '-') {
      out.push({ t: '-', span: { start: i, end: i + 1 } })
      i++
      continue
    }
    let end = i
    while (end < text.length && !isSpace(text[end]!) && !BREAKS.includes(text[end]!)) end++
    const raw = text.slice(i, end)
    const span = { start: i, end }
    pendingField = null
    const operator = OPERATOR_WORDS.get(foldText(raw))
    if (operator) out.push({ t: operator, span })
    else {
      const f = FIELD.exec(raw)
      if (f) {
        const name = f[1]!
        const op = f[2] as FieldOp
        const valueStart = i + name.length + op.length
        const field: Extract<Lexeme, { t: 'field' }> = {
          t: 'field',
          name,
          nameSpan: { start: i, end: i + name.length },
          op,
          value: f[3] === '' ? null : f[3]!,
          valueSpan: { start: valueStart, end },
          span,
          quoted: false
        }
        out.push(field)
        if (f[3] === '' && text[end] === '"') pendingField = field
      } else out.push({ t: 'word', raw, span })
    }
    i = end
  }
  return out
}

export interface ParseResult {
  /** Null when the query has no term (empty, or only punctuation). */
  node: QueryNode | null
  errors: QueryError[]
}

class Parser {
  private at = 0
  private depth = 0
  private nodes = 0
  readonly errors: QueryError[] = []

  constructor(
    private readonly lexemes: Lexeme[],
    private readonly text: string
  ) {}

  private peek(): Lexeme | undefined {
    return this.lexemes[this.at]
  }

  private error(code: QueryErrorCode, span: Span, subject = this.text.slice(span.start, span.end)): void {
    this.errors.push({ code, span, subject })
  }

  /** Counts a node made; the first one past MAX_NODES is reported, from it to the end of the text. */
  private made<T extends QueryNode | null>(node: T): T {
    if (node !== null && ++this.nodes === MAX_NODES + 1) {
      this.error('tooComplex', { start: node.span.start, end: this.text.length }, '')
    }
    return node
  }

  private combine(kind: 'and' | 'or', items: QueryNode[]): QueryNode | null {
    return items.length > 1 ? this.made(combine(kind, items)) : combine(kind, items)
  }

  /** The whole query; a stray ")" is reported and skipped so the rest still parses. */
  parseQuery(): QueryNode | null {
    const parts: QueryNode[] = []
    for (;;) {
      step()
      const n = this.parseOr()
      if (n) parts.push(n)
      const next = this.peek()
      if (!next) break
      if (next.t === ')') this.error('unbalancedClose', next.span)
      this.at++
    }
    return this.combine('and', parts)
  }

  private endsTerm(l: Lexeme | undefined): boolean {
    return !l || l.t === ')' || l.t === 'OR'
  }

  private parseOr(): QueryNode | null {
    const items: QueryNode[] = []
    const first = this.parseAnd()
    if (first) items.push(first)
    while (this.peek()?.t === 'OR') {
      step()
      const op = this.peek()!
      this.at++
      if (items.length === 0 || this.endsTerm(this.peek())) {
        this.error('danglingOperator', op.span)
        continue
      }
      const n = this.parseAnd()
      if (n) items.push(n)
    }
    return this.combine('or', items)
  }

  private parseAnd(): QueryNode | null {
    const items: QueryNode[] = []
    while (!this.endsTerm(this.peek())) {
      step()
      const l = this.peek()!
      if (l.t === 'AND') {
        this.at++
        if (items.length === 0 || this.endsTerm(this.peek()) || this.peek()?.t === 'AND') this.error('danglingOperator', l.span)
        continue
      }
      const n = this.parseUnary()
      if (n) items.push(n)
    }
    return this.combine('and', items)
  }

  /** A run of "-" / NOT is read in a loop, then wrapped around its term from the inside out. */
  private parseUnary(): QueryNode | null {
    const nots: Lexeme[] = []
    for (let l = this.peek()!; l.t === '-' || l.t === 'NOT'; l = this.peek()!) {
      step()
      this.at++
      nots.push(l)
      const next = this.peek()
      if (this.endsTerm(next) || next?.t === 'AND') {
        this.error('danglingNot', l.span)
        return null
      }
    }
    let item = this.parseAtom()
    for (let i = nots.length - 1; i >= 0 && item; i--) {
      item = this.made<QueryNode>({ kind: 'not', item, span: { start: nots[i]!.span.start, end: item.span.end } })
    }
    return item
  }

  private parseAtom(): QueryNode | null {
    step()
    const l = this.peek()!
    this.at++
    switch (l.t) {
      case '(': {
        if (this.depth >= MAX_DEPTH) {
          this.error('tooDeep', l.span)
          return null
        }
        this.depth++
        const inner = this.parseOr()
        this.depth--
        const close = this.peek()
        if (close?.t !== ')') {
          this.error('unbalancedOpen', l.span)
          return inner
        }
        this.at++
        if (!inner) {
          this.error('emptyGroup', { start: l.span.start, end: close.span.end })
          return null
        }
        return { ...inner, span: { start: l.span.start, end: close.span.end } }
      }
      case 'phrase': {
        const tokens = tokensOf(l.raw)
        return tokens.length ? this.made({ kind: 'text', tokens, prefix: false, span: l.span }) : null
      }
      case 'word': {
        const tokens = tokensOf(l.raw)
        return tokens.length ? this.made({ kind: 'text', tokens, prefix: true, span: l.span }) : null
      }
      case 'field':
        return this.made(this.field(l))
      default:
        // AND / OR / ')' never reach here (endsTerm); a '-' or NOT is handled by parseUnary.
        return null
    }
  }

  private field(l: Extract<Lexeme, { t: 'field' }>): QueryNode | null {
    const base = { kind: 'field' as const, name: l.name, nameSpan: l.nameSpan, op: l.op, span: l.span }
    if (l.value === null) {
      this.error('missingValue', l.span, l.name)
      return null
    }
    let value: FieldValue
    if (l.quoted) value = { kind: 'phrase', raw: l.value, span: l.valueSpan }
    else if (l.op === ':' || l.op === '=') {
      const r = RANGE.exec(l.value)
      if (r) {
        const min = r[1] ? numberOf(r[1]) : null
        const max = r[2] ? numberOf(r[2]) : null
        if ((r[1] && min === null) || (r[2] && max === null) || (min === null && max === null)) {
          this.error('notANumber', l.valueSpan)
          return null
        }
        if (min !== null && max !== null && min > max) {
          this.error('badRange', l.valueSpan)
          return null
        }
        value = { kind: 'range', min, max, span: l.valueSpan }
      } else value = { kind: 'word', raw: l.value, span: l.valueSpan }
    } else {
      if (numberOf(l.value) === null) {
        this.error('notANumber', l.valueSpan)
        return null
      }
      value = { kind: 'word', raw: l.value, span: l.valueSpan }
    }
    return { ...base, value }
  }
}

function combine(kind: 'and' | 'or', items: QueryNode[]): QueryNode | null {
  if (items.length === 0) return null
  if (items.length === 1) return items[0]!
  return { kind, items, span: { start: items[0]!.span.start, end: items[items.length - 1]!.span.end } }
}

/** Never throws: a query that cannot run comes back with errors, each with its span. */
export function parseQuery(text: string): ParseResult {
  const parser = new Parser(lex(text), text)
  const node = parser.parseQuery()
  return { node, errors: parser.errors }
}
