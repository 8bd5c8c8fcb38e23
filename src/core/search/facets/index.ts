import { IANAZone } from 'luxon'
import type { Facets } from '../../../shared/domain'
import type { ScopeRef, SearchReader, SqlPiece } from '../../cache'
import { CallsightError } from '../../errors'
import type { CallColumns } from '../memory/columns'
import type { CompiledQuery } from '../query/compile'
import type { MatchSet } from '../memory/match-set'
import { dayStarts, type NumericRange } from './buckets'
import { ColumnsSource } from './columns-source'
import type { DayRange, FacetSource, KeyColumns, TypeScopes } from './source'
import { SqlSource } from './sql-source'
import { TotalsSource } from './totals-source'

export type { FacetSource, FacetSourceKind } from './source'

/**
 * Above this share of all calls, facets count the match list against the in-memory columns
 * (CallColumns); below it, they start from the matches and seek in SQLite, ~1 µs a match,
 * which needs no columns built.
 */
export const SCAN_SHARE = 1 / 20

/**
 * How a query's facets are counted, chosen once per call:
 *  - totals: whether the running totals answer first (no text, no filter but dates);
 *  - many matches (or every call): the in-memory columns, then SQL's scan form for what they
 *    cannot fold; few: SQL's seek form from the matches (`ids`).
 */
export type FacetPlan = { totals: boolean } & ({ matches: 'many' } | { matches: 'few'; ids: SqlPiece })

/**
 * From this many matches, facets count against the columns whenever those are in memory
 * (after the warm-up), whatever their share: the seek's ~1 µs a match holds only while the
 * rows are in the page cache; in a file larger than it (5,000,000 calls) a seek is a random
 * read, ~10 µs, and 243,000 matches took 3.5 s.
 */
export const KEPT_COLUMNS_MIN = 2000

/** `columnsKept`: the date order and quarter hours are in memory (CallColumns.orderKept). */
export function chooseFacetPlan(
  q: Pick<CompiledQuery, 'dateOnly'>,
  m: { total: number; allCalls: number; ids: SqlPiece | null; columnsKept?: boolean },
  scanShare = SCAN_SHARE
): FacetPlan {
  if (m.ids === null || m.total > scanShare * m.allCalls || (m.columnsKept === true && m.total >= KEPT_COLUMNS_MIN))
    return { totals: q.dateOnly, matches: 'many' }
  return { totals: q.dateOnly, matches: 'few', ids: m.ids }
}

/** Single-type scopes by type. */
function typeScopes(scopes: readonly ScopeRef[]): Map<string, number[]> {
  const byType = new Map<string, number[]>()
  for (const s of scopes) {
    if (s.filters.callTypes.length !== 1) continue
    const t = s.filters.callTypes[0]!
    byType.set(t, [...(byType.get(t) ?? []), s.id])
  }
  return byType
}

export interface FacetQuestion {
  q: CompiledQuery
  /** The query's count (its matches). */
  total: number
  /** The number of calls in the cache. */
  allCalls: number
  matches: MatchSet
  scopes: readonly ScopeRef[]
  /** The key asked about, when it holds items. */
  key: KeyColumns | null
  zone: string
}

export class FacetCounter {
  constructor(
    private readonly reader: Pick<SearchReader, 'totals' | 'facetSql'>,
    private readonly columns: CallColumns,
    private readonly scanShare = SCAN_SHARE,
    /** Count against the columns once they are in memory (KEPT_COLUMNS_MIN); false: by share alone, as before. */
    private readonly keptColumns = true
  ) {}

  private plan(q: CompiledQuery, total: number, allCalls: number, matches: MatchSet): FacetPlan {
    const columnsKept = this.keptColumns && this.columns.orderKept()
    return chooseFacetPlan(q, { total, allCalls, ids: matches.sql(), columnsKept }, this.scanShare)
  }

  compute(ask: FacetQuestion): Facets {
    const { q, total, matches, zone } = ask
    if (!IANAZone.isValidZone(zone)) throw new CallsightError('InvalidInput', `"${zone}" is not a known time zone.`)
    if (q.empty || total === 0) return { total: 0, perType: [], perDay: [], perValue: [] }
    const source = this.source(this.plan(q, total, ask.allCalls, matches), ask)
    const days = this.dayRange(q, zone)
    const types: TypeScopes = typeScopes(ask.scopes)
    return {
      total,
      perDay: days === null ? [] : source.perDay(days),
      perType: types.size === 0 ? [] : source.perType(types),
      perValue: ask.key === null || ask.key.ids.length === 0 ? [] : source.perValue(ask.key)
    }
  }

  /**
   * One key's values among the matches, by the same sources as its facet: a text key's most
   * frequent values, or a numeric key's observed range (null when no match holds a number).
   */
  values(ask: Pick<FacetQuestion, 'q' | 'total' | 'allCalls' | 'matches'> & { key: KeyColumns }): {
    values: Facets['perValue']
    range: NumericRange | null
  } {
    const { q, total, matches, key } = ask
    if (q.empty || total === 0 || key.ids.length === 0) return { values: [], range: null }
    const source = this.source(this.plan(q, total, ask.allCalls, matches), ask)
    return key.numeric ? { values: [], range: source.numericRange(key) } : { values: source.perValue(key), range: null }
  }

  /**
   * The plan's sources, each built with the next as its fallback. Few matches, but
   * KEPT_COLUMNS_MIN or more of them, before the warm-up kept the date order: whichever
   * columns are in memory already count them (the quarter hours are, once any query read
   * them), the rest seek.
   */
  private source(plan: FacetPlan, ask: Pick<FacetQuestion, 'q' | 'matches' | 'total'>): FacetSource {
    let counted: FacetSource
    if (plan.matches === 'many')
      counted = new ColumnsSource(
        this.columns,
        ask.matches,
        new SqlSource(this.reader.facetSql, { form: 'scan', matches: ask.matches.sql() })
      )
    else {
      const seek = new SqlSource(this.reader.facetSql, { form: 'seek', matches: plan.ids })
      counted = this.keptColumns && ask.total >= KEPT_COLUMNS_MIN ? new ColumnsSource(this.columns, ask.matches, seek, true) : seek
    }
    return plan.totals ? new TotalsSource(this.reader.totals, ask.q, counted) : counted
  }

  /** The days of the zone from the first call (or the range's start) to the last. */
  private dayRange(q: CompiledQuery, zone: string): DayRange | null {
    const bounds = this.reader.totals.callBounds()
    if (bounds === null) return null
    const lo = Math.max(bounds.lo, q.from ?? bounds.lo)
    const hi = Math.min(bounds.hi, q.to === null ? bounds.hi : q.to - 1)
    if (hi < lo) return null
    const days = dayStarts(lo, hi, zone)
    return days.length === 0 ? null : { days, hi }
  }
}
