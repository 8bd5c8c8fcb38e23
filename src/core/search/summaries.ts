import { IANAZone } from 'luxon'
import type { Breakdown, Facets, ResultColumn, Trend, TrendBucket, TrendMeasure, ValueSuggestions } from '../../shared/domain'
import { foldText } from '../../shared/text/fold'
import { CallsightError } from '../errors'
import { countOf } from './count'
import { mergeFolded } from './query/folded-values'
import { breakdownBars, trendPoints, type Matched } from './insight-series'
import type { Prepared, SearchContext } from './search-context'

/**
 * What is said about a query's matches as a whole: facets, an analysis key's values, and
 * Insight's breakdown and trend. Each starts from the query's count and match set, kept
 * with its state, so they share one read of the matches.
 */

export function facets(ctx: SearchContext, p: Prepared, analysisKey: string | null, zone: string): Facets {
  const total = countOf(ctx, p)
  const info = analysisKey === null ? undefined : ctx.catalog.keyInfo(analysisKey)
  return ctx.facetCounter.compute({
    q: p.q,
    total,
    allCalls: ctx.catalog.totalCalls(),
    matches: ctx.matchesOf(p),
    scopes: ctx.catalog.scopes(),
    key: analysisKey === null || info === undefined ? null : { ids: ctx.catalog.keyIds(analysisKey), numeric: info.numeric },
    zone
  })
}

export function values(ctx: SearchContext, prepare: () => Prepared, key: string, contains?: string): ValueSuggestions {
  const info = ctx.catalog.keyInfo(key)
  if (info === undefined) return { key, numeric: false, items: 0, values: [], range: null }
  const p = prepare()
  const { values, range } = ctx.facetCounter.values({
    q: p.q,
    total: countOf(ctx, p),
    allCalls: ctx.catalog.totalCalls(),
    matches: ctx.matchesOf(p),
    key: {
      ids: ctx.catalog.keyIds(key),
      numeric: info.numeric,
      contains: contains === undefined ? undefined : foldText(contains.trim())
    }
  })
  const merged = mergeFolded(values)
  return {
    key,
    numeric: info.numeric,
    items: range?.items ?? merged.reduce((n, v) => n + v.count, 0),
    values: merged,
    range: range && { min: range.min, max: range.max }
  }
}

export function breakdown(ctx: SearchContext, prepare: () => Prepared, column: ResultColumn): Breakdown {
  const ranked = ctx.view.sortedBy(column)
  const numeric = ranked.numbers !== null
  const m = matched(ctx, prepare())
  if (m === null) return { column, numeric, total: 0, missing: 0, bars: [] }
  return { column, numeric, ...breakdownBars(ranked, m) }
}

export function trend(
  ctx: SearchContext,
  prepare: () => Prepared,
  column: ResultColumn,
  measure: TrendMeasure,
  bucket: TrendBucket,
  zone: string
): Trend {
  if (!IANAZone.isValidZone(zone)) throw new CallsightError('InvalidInput', `"${zone}" is not a known time zone.`)
  const ranked = ctx.view.sortedBy(column)
  const m = matched(ctx, prepare())
  const points = m === null ? [] : trendPoints(ranked, m, ctx.columns.quarters(), measure, bucket, zone)
  return { column, measure, bucket, points }
}

/** The query's matched calls for Insight's column charts; null when it matches nothing. */
function matched(ctx: SearchContext, p: Prepared): Matched | null {
  if (p.q.empty || countOf(ctx, p) === 0) return null
  return { ids: ctx.matchesOf(p).list(), all: ctx.columns.byDate() }
}
