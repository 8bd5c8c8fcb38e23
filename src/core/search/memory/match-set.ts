import type { MatchReads, SqlPiece } from '../../cache'
import { countOf, idsOf } from './bitmap-eval'

/** Above this many matches, facets' SQL names the matches by their query rather than a list. */
const LISTED_MAX = 100_000

/**
 * The calls a query matches, read once as a list and kept with the query's state, so its
 * count, facets and deep pages share one read. Null lists mean every call matches.
 */
export class MatchSet {
  private cached: Int32Array | null | undefined
  private bits: Uint8Array | null = null
  /** How many the evaluator's bytes hold, once counted. */
  private counted: number | null = null

  /**
   * `ids`: the query's matchedIds() (sql.ts); null when every call matches. `evaluate`: the
   * same matches as a byte per id from the bitmap evaluator (bitmap-eval.ts), when it takes
   * the query; the list is then read from it instead of from SQL.
   */
  constructor(
    readonly ids: SqlPiece | null,
    private readonly reads: MatchReads,
    private readonly evaluate?: () => Uint8Array
  ) {}

  /**
   * Whether the matches were read already: the list, or the evaluator's bytes it is one pass
   * from (a deep page after such a count walks the bytes rather than skip by counting).
   */
  get read(): boolean {
    return this.cached !== undefined || this.bits !== null
  }

  list(): Int32Array | null {
    if (this.cached === undefined) {
      if (this.ids === null) this.cached = null
      else if (this.evaluate) {
        this.bits ??= this.evaluate()
        this.cached = idsOf(this.bits, this.counted ?? undefined)
      } else this.cached = this.reads.idList(this.ids)
    }
    return this.cached
  }

  /**
   * How many calls match (null when every call does): from the evaluator's bytes when it
   * takes the query, without making the list (a pass writing 4 bytes per match, ~20 ms for
   * 4,000,000 matches), which is made only when facets or a page ask for it.
   */
  count(): number | null {
    if (this.ids === null) return null
    if (this.cached !== undefined || !this.evaluate) return this.list()!.length
    this.bits ??= this.evaluate()
    return (this.counted ??= countOf(this.bits))
  }

  /** A byte per id below `size`: 1 when the call matches. Null when every call matches. */
  bitmap(size: number): Uint8Array | null {
    if (this.ids === null) return null
    if (this.bits?.length === size) return this.bits
    const list = this.list()!
    if (this.bits?.length !== size) {
      const bits = new Uint8Array(size)
      for (let i = 0; i < list.length; i++) if (list[i]! < size) bits[list[i]!] = 1
      this.bits = bits
    }
    return this.bits
  }

  /**
   * The matches as SQL for facets counted in SQLite: the list itself once read (unless long),
   * so SQLite does not evaluate the query again; else the query's own SELECT.
   */
  sql(): SqlPiece | null {
    // Counted from the evaluator's bytes: the list is one pass from them.
    if (this.cached === undefined && this.bits !== null && this.evaluate && this.count()! <= LISTED_MAX) this.list()
    const list = this.cached
    if (this.ids === null || !list || list.length > LISTED_MAX) return this.ids
    return { sql: 'SELECT value AS id FROM json_each(?)', params: [`[${list.join(',')}]`] }
  }
}
