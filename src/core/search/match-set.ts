import type { MatchReads, SqlPiece } from '../cache'

/**
 * The calls a query matches, read once as a list and kept with the query's state, so its
 * count, facets and deep pages share one read. Null lists mean every call matches.
 */
export class MatchSet {
  private cached: Int32Array | null | undefined
  private bits: Uint8Array | null = null

  /** `ids`: the query's matchedIds() (sql.ts); null when every call matches. */
  constructor(
    readonly ids: SqlPiece | null,
    private readonly reads: MatchReads
  ) {}

  /** Whether the list was read already. */
  get read(): boolean {
    return this.cached !== undefined
  }

  list(): Int32Array | null {
    if (this.cached === undefined) this.cached = this.ids === null ? null : this.reads.idList(this.ids)
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
}
