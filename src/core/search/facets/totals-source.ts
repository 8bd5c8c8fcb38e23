import type { Facets } from '../../../shared/domain'
import { HOUR_MS, hourOf, type TotalsReads } from '../../cache'
import { foldIntoDays, hourAligned, numericBuckets, numericRange, splitHours, topValues, typeFacet, type NumericRange } from './buckets'
import type { DayRange, FacetSource, KeyColumns, TypeScopes } from './source'

/**
 * Facets from the running totals (migration 2), for a query with no text and no filter but
 * a date range: whole UTC hours from the totals, the partial hours at the range's ends
 * counted exactly. Hands to `fallback` what the totals cannot fold: days that do not start
 * on a whole UTC hour (Asia/Kolkata), a type vouched for by several scopes (a call may be in
 * both), and values within a date range (per-hour value totals would be as large as the
 * items themselves).
 */
export class TotalsSource implements FacetSource {
  readonly kind = 'totals'

  constructor(
    private readonly reads: TotalsReads,
    private readonly range: { from: number | null; to: number | null },
    private readonly fallback: FacetSource
  ) {}

  perDay(range: DayRange): Facets['perDay'] {
    if (!range.days.every((d) => hourAligned(d.start))) return this.fallback.perDay(range)
    const split = splitHours(this.range.from, this.range.to)
    const hours = this.reads.hourTotals(split.hourFrom, split.hourTo)
    for (const [a, b] of split.edges) {
      const n = this.reads.callsBetween(a, b)
      if (n > 0) hours.push([hourOf(a), n])
    }
    hours.sort((x, y) => x[0] - y[0])
    return foldIntoDays(
      range.days,
      hours.map(([hour, n]) => [hour * HOUR_MS, n] as const)
    )
  }

  perType(types: TypeScopes): Facets['perType'] {
    if ([...types.values()].some((list) => list.length > 1)) return this.fallback.perType(types)
    const scopeIds = [...types.values()].map((list) => list[0]!)
    const split = splitHours(this.range.from, this.range.to)
    const perScope = new Map<number, number>()
    const add = (rows: Array<[number, number]>): void => {
      for (const [scope, n] of rows) perScope.set(scope, (perScope.get(scope) ?? 0) + n)
    }
    add(this.reads.scopeHourTotals(scopeIds, split.hourFrom, split.hourTo))
    for (const [a, b] of split.edges) add(this.reads.scopeCallsBetween(scopeIds, a, b))
    return typeFacet([...types].map(([value, list]) => [value, perScope.get(list[0]!) ?? 0] as const))
  }

  perValue(key: KeyColumns): Facets['perValue'] {
    if (this.range.from !== null || this.range.to !== null) return this.fallback.perValue(key)
    const rows = this.reads.valueTotals(key.ids)
    if (!key.numeric) {
      const counts = new Map<string, number>()
      for (const [v, , n] of rows) counts.set(v, (counts.get(v) ?? 0) + n)
      return topValues(counts, key.contains)
    }
    const { values, weights } = this.weighted(rows)
    return numericBuckets(values, weights)
  }

  numericRange(key: KeyColumns): NumericRange | null {
    if (this.range.from !== null || this.range.to !== null) return this.fallback.numericRange(key)
    const { values, weights } = this.weighted(this.reads.valueTotals(key.ids))
    return numericRange(values, weights)
  }

  /** The numeric values of the totals' rows, each with its number of items. */
  private weighted(rows: ReturnType<TotalsReads['valueTotals']>): { values: number[]; weights: number[] } {
    const values: number[] = []
    const weights: number[] = []
    for (const [, num, n] of rows) {
      if (num === null) continue
      values.push(num)
      weights.push(n)
    }
    return { values, weights }
  }
}
