import type { TeamCount } from '../../../shared/domain'
import { formatCount } from './format'

type Translate = (key: string, named: Record<string, unknown>, plural?: number) => string

/**
 * The count line of a team cache search: an estimate always reads as one ("≈ 317,000
 * (estimate)"), the exact count as the local count does ("317,482 results").
 */
export function teamCountText(c: TeamCount, t: Translate, locale: string): string {
  if (c.kind === 'exact') return t('search.total', { count: formatCount(c.n, locale) }, c.n)
  return t(c.exactTimedOut ? 'search.teamEstimateTimedOut' : 'search.teamEstimate', { count: formatCount(c.about, locale) })
}
