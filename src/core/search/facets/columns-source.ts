import type { Facets } from '../../../shared/domain'
import { QUARTER_MS } from '../../cache'
import { countBits } from '../memory/bits'
import { MAX_MASK_TYPES, NO_CALL, type CallColumns } from '../memory/columns'
import type { MatchSet } from '../memory/match-set'
import { foldQuarters, numericBuckets, numericRange, topValues, typeFacet, type NumericRange } from './buckets'
import type { DayRange, FacetSource, KeyColumns, TypeScopes } from './source'

/**
 * Facets of many matches: the match list (read once) counted in one pass against the
 * in-memory columns. Hands to `fallback` what the columns cannot fold: days that do not
 * start on a quarter hour, and more call types than a mask has bits. With `keptOnly`, also
 * every facet whose column is not in memory yet: for a few thousand matches the columns
 * answer in a few ms, where seeking each match costs about a µs (~0.1 s for 86,000 matches
 * per facet at 5,000,000 calls), but reading a column whole to answer them would cost more.
 */
export class ColumnsSource implements FacetSource {
  readonly kind = 'columns'

  constructor(
    private readonly columns: CallColumns,
    private readonly matches: MatchSet,
    private readonly fallback: FacetSource,
    private readonly keptOnly = false
  ) {}

  perDay(range: DayRange): Facets['perDay'] {
    const { days, hi } = range
    if (!days.every((d) => d.start % QUARTER_MS === 0) || (this.keptOnly && !this.columns.quartersKept()))
      return this.fallback.perDay(range)
    const quarters = this.columns.quarters()
    const q0 = days[0]!.start / QUARTER_MS
    const perQuarter = new Uint32Array(Math.floor(hi / QUARTER_MS) - q0 + 1)
    const count = (id: number): void => {
      const k = (quarters[id] ?? NO_CALL) - q0
      if (k >= 0 && k < perQuarter.length) perQuarter[k]!++
    }
    const ids = this.matches.list()
    if (ids === null) for (let id = 0; id < quarters.length; id++) count(id)
    else for (let i = 0; i < ids.length; i++) count(ids[i]!)
    return foldQuarters(days, q0, QUARTER_MS, perQuarter)
  }

  perType(types: TypeScopes): Facets['perType'] {
    const groups = [...types.values()]
    if (types.size > MAX_MASK_TYPES || (this.keptOnly && !(this.columns.quartersKept() && this.columns.typeMasksKept(groups))))
      return this.fallback.perType(types)
    const names = [...types.keys()]
    const masks = this.columns.typeMasks(groups)
    const counts = new Uint32Array(names.length)
    const ids = this.matches.list()
    if (ids === null) for (let id = 0; id < masks.length; id++) countBits(masks[id]!, counts)
    else for (let i = 0; i < ids.length; i++) countBits(masks[ids[i]!] ?? 0, counts)
    return typeFacet(names.map((name, t) => [name, counts[t]!] as const))
  }

  perValue(key: KeyColumns): Facets['perValue'] {
    if (!this.kept(key)) return this.fallback.perValue(key)
    const { col, keep } = this.itemsOf(key)
    if (col.nums !== null) return numericBuckets(this.numbers(key), null)
    const { calls, length } = col
    const codes = col.codes!
    const perCode = new Uint32Array(col.dict.length)
    for (let i = 0; i < length; i++) if (keep(calls[i]!)) perCode[codes[i]!]!++
    const counts = new Map<string, number>()
    perCode.forEach((n, c) => {
      if (n > 0) counts.set(col.dict[c]!, n)
    })
    return topValues(counts, key.contains)
  }

  numericRange(key: KeyColumns): NumericRange | null {
    if (!this.kept({ ids: key.ids, numeric: true })) return this.fallback.numericRange(key)
    return numericRange(this.numbers({ ids: key.ids, numeric: true }), null)
  }

  /** Whether a key's column can be counted without reading it (always, unless keptOnly). */
  private kept(key: KeyColumns): boolean {
    return !this.keptOnly || (this.columns.quartersKept() && this.columns.valuesKept(key.ids, key.numeric))
  }

  /** A key's column and whether an item's call is among the matches. */
  private itemsOf(key: KeyColumns): { col: ReturnType<CallColumns['values']>; keep: (call: number) => boolean } {
    const col = this.columns.values(key.ids, key.numeric)
    const bits = this.matches.bitmap(this.columns.quarters().length)
    // A removed item has call -1: never in the bitmap, and skipped when everything matches.
    return { col, keep: (c) => (bits === null ? c >= 0 : bits[c] === 1) }
  }

  /** The numeric values of a key's items among the matches. */
  private numbers(key: KeyColumns): Float64Array {
    const { col, keep } = this.itemsOf(key)
    const values = new Float64Array(col.length)
    let n = 0
    for (let i = 0; i < col.length; i++) {
      const v = col.nums![i]!
      if (!Number.isNaN(v) && keep(col.calls[i]!)) values[n++] = v
    }
    return values.subarray(0, n)
  }
}
