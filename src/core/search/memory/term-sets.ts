import { PerVersion, type DataWatch } from '../data-watch'
import { keepWithin } from './kept-bytes'

/**
 * Bytes of analysis-term sets kept at once (a byte per call: 5 MB each at 5,000,000 calls,
 * so 8 of them), beside the word sets' WORD_SET_BYTES, under the search's resident target.
 */
export const TERM_SET_BYTES = 40 * 1024 * 1024

/**
 * The calls of analysis terms (an equals, a range) as byte sets, kept per data version: each
 * is a pass over its key's whole column (5,000,000 items at 5,000,000 calls: ~50 ms for an
 * equals, reading each item's call and value), and a user counts, facets and pages the same
 * filter again and again while refining the rest of the query. At most `budget` bytes, the
 * least recently used dropped first; any change to the data drops them all, so a set is
 * exact for the version it was made at (the columns follow the same version).
 */
export class TermSets {
  private readonly sets: PerVersion<Map<string, Uint8Array>>

  constructor(
    watch: DataWatch,
    private readonly budget = TERM_SET_BYTES
  ) {
    this.sets = new PerVersion(watch, () => new Map())
  }

  /**
   * The set kept under `key` for ids [0, size), made now when not kept; the caller may not
   * change it (it is shared by every later question until the data changes).
   */
  get(key: string, size: number, make: () => Uint8Array): Uint8Array {
    const kept = this.sets.get()
    const found = kept.get(key)
    if (found !== undefined && found.length === size) {
      // Most recently used last: the first key is the next to drop.
      kept.delete(key)
      kept.set(key, found)
      return found
    }
    const made = make()
    if (size > this.budget) return made
    keepWithin(kept, key, made, (s) => s.length, this.budget)
    return made
  }

  /** The keys kept now (tests). */
  keys(): string[] {
    return [...this.sets.get().keys()]
  }
}
