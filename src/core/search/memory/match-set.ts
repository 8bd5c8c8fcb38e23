import type { MatchReads, SqlPiece } from '../../cache'
import { idsOf } from './bitmap-eval'

/** Above this many matches, facets' SQL names the matches by their query rather than a list. */
const LISTED_MAX = 100_000

/**
 * The calls a query matches, read once as a list and kept with the query's state, so its
 * count, facets and deep pages share one read. Null lists mean every call matches.
 */
export class MatchSet {
  private cached: Int32Array | null | undefined
  private bits: Uint8Array | null = null

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

  /** Whether the list was read already. */
  get read(): boolean {
    return this.cached !== undefined
  }

  list(): Int32Array | null {
    if (this.cached === undefined) {
      if (this.ids === null) this.cached = null
      else if (this.evaluate) {
        this.bits = this.evaluate()
        this.cached = idsOf(this.bits)
      } else this.cached = this.reads.idList(this.ids)
    }
    return this.cached
  }

  /** A byte per id below `size`: 1 when the call matches. Null when every call matches. */
  bitmap(size: number): Uint8Array | null {
    const list = this.list()
    if (list === null) return null
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
    const list = this.cached
    if (this.ids === null || !list || list.length > LISTED_MAX) return this.ids
    return { sql: 'SELECT value AS id FROM json_each(?)', params: [`[${list.join(',')}]`] }
  }
}
