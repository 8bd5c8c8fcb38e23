import { CallsightError } from '../../core/errors'
import { SearchQuery, type SearchSort } from '../../shared/domain'
import { check, parseBoolFlag, parseIntFlag, parseList, parseResults, parseWhere } from '../args'
import { parseIsoArg } from '../dates'
import { buildReviewFilter, REVIEW_HELP, REVIEW_OPTIONS, type ReviewFlagValues } from './review-flags'

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

export const QUERY_HELP = `  [text]                free text: words match by prefix, "quoted phrases" exactly;
                        Turkish case and diacritics fold (istanbul finds İSTANBUL)
  --from ISO --to ISO   date range, read in --zone when without an offset
  --where EXPR          analysis filter, repeatable: key=value, key>=N, key<=N
  --sort S              date (oldest first) | -date (newest first, default) | relevance
  --types LIST --direction N --results R --has-new-request B
                        only calls a synced scope with those filters returned
  --zone ZONE           display zone (default: this computer's)
${REVIEW_HELP}`

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
      results: parseResults(values.results, 'all'),
      hasNewRequest: parseBoolFlag(values['has-new-request'], '--has-new-request'),
      analysis: parseWhere(values.where ?? []),
      sort,
      review: buildReviewFilter(values)
    },
    'query'
  )
}
