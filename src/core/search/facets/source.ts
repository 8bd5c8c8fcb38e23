import type { Facets } from '../../../shared/domain'
import type { DayStart, NumericRange } from './buckets'

/** The days a per-day facet covers, and the last instant counted (the range's or the data's end). */
export interface DayRange {
  days: readonly DayStart[]
  hi: number
}

/** Single-type scopes by call type: a call's type is known only from those (docs/cache.md). */
export type TypeScopes = ReadonlyMap<string, readonly number[]>

/** An analysis key's (key, friendly name) ids and whether its values are numbers. */
export interface KeyColumns {
  ids: readonly number[]
  numeric: boolean
  /** Only values whose folded text contains this (folded): the value box's typed text. */
  contains?: string
}

/**
 * One way of counting the three facets of a query (as Datasette has one class per facet
 * kind). A source that cannot answer one facet exactly hands it to the source it was built
 * with as its fallback, so every source answers all three. Inputs are never empty: the
 * counter answers empty days, types and keys itself.
 */
export interface FacetSource {
  readonly kind: FacetSourceKind
  perDay(range: DayRange): Facets['perDay']
  perType(types: TypeScopes): Facets['perType']
  perValue(key: KeyColumns): Facets['perValue']
  /** A numeric key's smallest and largest value among the matches (null: no item has one). */
  numericRange(key: KeyColumns): NumericRange | null
}

/**
 * - totals: the running totals (no text, no filter but dates): O(hours + values).
 * - columns: the match list counted against the in-memory columns (many matches).
 * - sql-scan: SQL over the date index and scope members against the match set (what the
 *   columns cannot fold).
 * - sql-seek: SQL from each match to its row and items (few matches).
 */
export type FacetSourceKind = 'totals' | 'columns' | 'sql-scan' | 'sql-seek'
