import { CallsightError } from '../../core/errors'
import { DEFAULT_RESULTS, SearchQuery, type SearchSort } from '../../shared/domain'
import type { AnalysisKeyInfo } from '../../shared/domain'
import { analyzeQuery, describeQueryError, underline } from '../../shared/query'
import { terminalLine } from '../terminal-text'
import type { Io } from '../output'
import { check, parseBoolFlag, parseIntFlag, parseList, parseResults, parseWhere } from '../args'
import { parseIsoArg } from '../dates'
import { buildReviewFilter, REVIEW_OPTIONS, type ReviewFlagValues } from './review-flags'

/** The local search flags shared by `search` and `export`. */
export const QUERY_OPTIONS = {
  from: { type: 'string' },
  to: { type: 'string' },
  where: { type: 'string', multiple: true },
  sort: { type: 'string' },
  types: { type: 'string' },
  direction: { type: 'string' },
  results: { type: 'string' },
  'has-new-request': { type: 'string' },
  zone: { type: 'string' },
  ...REVIEW_OPTIONS
} as const

export interface QueryFlagValues extends ReviewFlagValues {
  from?: string
  to?: string
  where?: string[]
  sort?: string
  types?: string
  direction?: string
  results?: string
  'has-new-request'?: string
}

const SORTS: Record<string, SearchSort> = { date: 'date_asc', '-date': 'date_desc', relevance: 'relevance' }

export function buildQuery(values: QueryFlagValues, positionals: string[], zone: string): SearchQuery {
  const sortFlag = values.sort ?? '-date'
  const sort = SORTS[sortFlag]
  if (!sort) throw new CallsightError('InvalidInput', `--sort: expected date, -date or relevance, not "${sortFlag}".`)
  return check(
    SearchQuery,
    {
      text: positionals.join(' ').trim(),
      from: values.from === undefined ? null : parseIsoArg(values.from, zone, '--from'),
      to: values.to === undefined ? null : parseIsoArg(values.to, zone, '--to', true),
      callTypes: parseList(values.types),
      direction: parseIntFlag(values.direction, '--direction', -1_000_000, 1_000_000) ?? null,
      results: parseResults(values.results, DEFAULT_RESULTS),
      hasNewRequest: parseBoolFlag(values['has-new-request'], '--has-new-request'),
      analysis: parseWhere(values.where ?? []),
      sort,
      review: buildReviewFilter(values)
    },
    'query'
  )
}

/**
 * The query text's first error, underlined under the text as typed (stderr), or nothing.
 * Returns whether the text can run; core refuses it too, but without the picture.
 */
export function checkQueryText(text: string, keys: readonly AnalysisKeyInfo[], io: Io, command: string): boolean {
  const e = analyzeQuery(text, { keys }).errors[0]
  if (!e) return true
  const safe = terminalLine(text)
  // The underline lines up only when the text needed no escaping.
  const picture = safe === text ? `\n  ${underline(text, e).replace('\n', '\n  ')}` : ''
  io.err(`callsight ${command}: the search text is not valid: ${terminalLine(describeQueryError(e))}${picture}\n`)
  return false
}
