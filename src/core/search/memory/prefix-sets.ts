import { PerVersion, type DataWatch } from '../data-watch'

/**
 * The FTS5 expression of one short prefix as typed ("i"*, "ka"*): its doclist (the prefix
 * index's, schema 7) holds most calls. Code points, not UTF-16 units: "ı" is one letter.
 */
const SHORT_PREFIX = /^"[^"\s]{1,2}"\*$/u

/** Short-prefix sets kept at once (each a byte per call: 1 MB at 1,000,000 calls). */
const SETS_KEPT = 24

/** A prefix's matches: a byte per call id (1: matches) and how many. */
export interface PrefixSet {
  bits: Uint8Array
  n: number
}

/** The set of these ids below `size` (duplicates and ids past the columns' end counted out). */
export function setOf(ids: Int32Array, size: number): PrefixSet {
  const bits = new Uint8Array(size)
  let n = 0
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!
    if (id < size && bits[id] === 0) {
      bits[id] = 1
      n++
    }
  }
  return { bits, n }
}

/**
 * One- and two-letter prefixes as id sets, kept per data version (DataWatch): the first
 * keystrokes of a word ("i", then "ka") match most calls, and reading ~900,000 ids out of
 * FTS5 is the floor of every count, facet and page built on them (~150–800 ms at 1,000,000
 * calls). Read once per data version by the first count, facet or match list that needs one,
 * each later question about the same prefix takes it from memory. Any change to the data
 * drops them all (as the catalog's prefix expansions), so a set is exact for the version it
 * was read at: every answer equals FTS5's.
 */
export class PrefixSets {
  private readonly sets: PerVersion<Map<string, PrefixSet>>

  constructor(
    private readonly read: (match: string) => Int32Array,
    /** Ids below this can be calls (the largest id + 1, as the in-memory columns size it). */
    private readonly size: () => number,
    watch: DataWatch
  ) {
    this.sets = new PerVersion(watch, () => new Map())
  }

  /** Whether this FTS5 expression is one short prefix (which `get` keeps). */
  static takes(match: string): boolean {
    return SHORT_PREFIX.test(match)
  }

  /** The set of a short prefix, read now when not kept yet; null for any other expression. */
  get(match: string): PrefixSet | null {
    if (!PrefixSets.takes(match)) return null
    const size = this.size()
    const kept = this.sets.get()
    const set = kept.get(match)
    if (set?.bits.length === size) return set
    const made = setOf(this.read(match), size)
    if (kept.size >= SETS_KEPT) kept.delete(kept.keys().next().value!)
    kept.set(match, made)
    return made
  }

  /** The set when it is kept already (a first page does not read a whole doclist for it). */
  peek(match: string): PrefixSet | null {
    if (!PrefixSets.takes(match)) return null
    // Sized only when kept: the size reads the in-memory columns, which a first page may not need.
    const set = this.sets.get().get(match)
    return set !== undefined && set.bits.length === this.size() ? set : null
  }
}
