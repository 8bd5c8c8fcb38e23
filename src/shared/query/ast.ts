/**
 * The search language's syntax tree. Parsed from the text the user types (parse.ts), names
 * resolved against the cache's fields and analysis keys (resolve.ts), then compiled to SQL by
 * core, evaluated in memory by tests and by the renderer ("matched in"). No zod, no Node: the
 * renderer bundles it.
 */

/** A stretch of the query text, [start, end) in UTF-16 units: what an error underlines. */
export interface Span {
  start: number
  end: number
}

/** The comparison a field term makes: `key:value`, `key=value`, `key>=4`, … */
export type FieldOp = ':' | '=' | '>=' | '<=' | '>' | '<'

/** A field term's value as written. */
export type FieldValue =
  | { kind: 'word'; raw: string; span: Span }
  | { kind: 'phrase'; raw: string; span: Span }
  | { kind: 'range'; min: number | null; max: number | null; span: Span }

/** What the parser gives: words and phrases are folded already; field names are not resolved. */
export type QueryNode =
  | { kind: 'text'; tokens: string[]; prefix: boolean; span: Span }
  | { kind: 'field'; name: string; nameSpan: Span; op: FieldOp; value: FieldValue; span: Span }
  | { kind: 'and'; items: QueryNode[]; span: Span }
  | { kind: 'or'; items: QueryNode[]; span: Span }
  | { kind: 'not'; item: QueryNode; span: Span }

/** A text column of a call, searched through the full-text index or a field's own predicate. */
export type TextField = 'title' | 'summary' | 'note'

/** A number bound: inclusive unless `strict`. */
export interface Bound {
  value: number
  strict: boolean
}

/** After resolution: fields are text columns or analysis keys, values typed. */
export type ResolvedNode =
  /** Words (prefix on the last token) or a phrase; field null means title, summary and analysis. */
  | { kind: 'text'; field: TextField | null; tokens: string[]; prefix: boolean; span: Span }
  /** Some item of the key whose folded value equals `folded`. */
  | { kind: 'equals'; key: string; value: string; folded: string; span: Span }
  /** Some item of the key whose numeric value is within the bounds. */
  | { kind: 'range'; key: string; min: Bound | null; max: Bound | null; span: Span }
  | { kind: 'and'; items: ResolvedNode[]; span: Span }
  | { kind: 'or'; items: ResolvedNode[]; span: Span }
  | { kind: 'not'; item: ResolvedNode; span: Span }

/** Why a query cannot run, and where. `args` fill the message's placeholders in either language. */
export type QueryErrorCode =
  | 'unbalancedOpen'
  | 'unbalancedClose'
  | 'emptyGroup'
  | 'danglingOperator'
  | 'danglingNot'
  | 'missingValue'
  | 'notANumber'
  | 'badRange'
  | 'unknownField'
  | 'fieldUnavailable'
  | 'tooDeep'
  | 'tooComplex'
  | 'notComparable'

export interface QueryError {
  code: QueryErrorCode
  span: Span
  /** The field or word concerned, when there is one. */
  subject: string
}
