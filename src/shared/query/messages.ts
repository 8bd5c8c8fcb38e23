import type { QueryError, QueryErrorCode } from './ast'

/**
 * English words for a query error, for the CLI and for InvalidInput from core. The app says
 * the same in its own language (renderer i18n `queryError.*`, same codes and {subject}).
 */
const EN: Record<QueryErrorCode, string> = {
  unbalancedOpen: 'this "(" is never closed',
  unbalancedClose: 'this ")" closes nothing',
  emptyGroup: 'empty parentheses',
  danglingOperator: '{subject} needs a term on each side',
  danglingNot: '{subject} needs a term after it',
  missingValue: '{subject}: needs a value',
  notANumber: '"{subject}" is not a number (a range is written 300..600)',
  badRange: 'the range {subject} starts after it ends',
  unknownField: 'no field or analysis key is called "{subject}" (quote the text to search for it)',
  fieldUnavailable: '{subject}: is not available in this cache',
  tooDeep: 'too many nested parentheses',
  tooComplex: 'the query is too complex: use fewer terms and operators',
  notComparable: '{subject} is text: compare it with ":" only'
}

export function describeQueryError(e: QueryError): string {
  return EN[e.code].replace('{subject}', e.subject)
}

/** The query with a caret line under the error's span, for a terminal. */
export function underline(text: string, e: QueryError): string {
  const width = Math.max(1, e.span.end - e.span.start)
  return `${text}\n${' '.repeat(e.span.start)}${'^'.repeat(width)}`
}
