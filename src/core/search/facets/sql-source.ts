import type { Facets } from '../../../shared/domain'
import type { FacetSqlReads, SqlPiece } from '../../cache'
import { dayFacetOf, foldIntoDays, numericBuckets, numericRange, tally, topValues, type NumericRange } from './buckets'
import type { DayRange, FacetSource, KeyColumns, TypeScopes } from './source'

/**
 * Facets counted by SQL: exact for any query, the last resort of the other sources.
 *  - scan (many matches, or every call): one index range per day, every scope member and
 *    item tested against the match set;
 *  - seek (few matches): from each match to its row and items.
 */
export type SqlForm = { form: 'scan'; matches: SqlPiece | null } | { form: 'seek'; matches: SqlPiece }

export class SqlSource implements FacetSource {
  readonly kind: 'sql-scan' | 'sql-seek'

  constructor(
    private readonly reads: FacetSqlReads,
    private readonly how: SqlForm
  ) {
    this.kind = how.form === 'scan' ? 'sql-scan' : 'sql-seek'
  }

  perDay(range: DayRange): Facets['perDay'] {
    const { days, hi } = range
    if (this.how.form === 'scan') {
      const ranges = days.map((d, i) => [d.start, days[i + 1]?.start ?? hi + 1] as const)
      return dayFacetOf(days, this.reads.perRange(ranges, this.how.matches))
    }
    return foldIntoDays(
      days,
      this.reads.callTimes(this.how.matches).map((t) => [t, 1] as const)
    )
  }

  perType(types: TypeScopes): Facets['perType'] {
    const pairs = [...types].flatMap(([type, scopeIds]) => scopeIds.map((id) => [id, type] as const))
    return this.reads.perType(pairs, this.how.matches)
  }

  perValue(key: KeyColumns): Facets['perValue'] {
    if (key.numeric) return numericBuckets(this.reads.numericValues(key.ids, this.how.matches), null)
    return topValues(tally(this.reads.textValues(key.ids, this.how.matches)), key.contains)
  }

  numericRange(key: KeyColumns): NumericRange | null {
    return numericRange(this.reads.numericValues(key.ids, this.how.matches), null)
  }
}
