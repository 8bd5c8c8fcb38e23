/**
 * Ranks of numbers for a column's sorted order: the distinct values ascending, and a rank
 * lookup per value. A Map keyed by the values would box every double read from a
 * Float64Array (a million allocations and lookups per build, most of a sort's rebuild after
 * a sync: docs/perf-log.md, sorting by a column); instead whole numbers over a short span are looked up in an
 * array by offset, and anything else by binary search in the sorted distinct values.
 */
export interface NumberRanks {
  distinct: Float64Array
  /** The rank of a value that is among `distinct` (NaN is never ranked: callers skip it). */
  rankOf(v: number): number
}

/** Whole-number spans up to this wide (and up to 4 per value) are ranked through an array. */
const SPAN_MAX = 1 << 22

export function rankNumbers(values: Float64Array): NumberRanks {
  let min = Infinity
  let max = -Infinity
  let whole = true
  let n = 0
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!
    if (Number.isNaN(v)) continue
    n++
    if (v < min) min = v
    if (v > max) max = v
    if (whole && (v !== Math.floor(v) || !Number.isFinite(v))) whole = false
  }
  if (n === 0) return { distinct: new Float64Array(0), rankOf: () => -1 }
  const span = max - min + 1
  if (whole && span <= Math.min(SPAN_MAX, 4 * n + 1024)) {
    const at = new Int32Array(span).fill(-1)
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!
      if (!Number.isNaN(v)) at[v - min] = 0
    }
    const distinct: number[] = []
    for (let k = 0; k < span; k++) if (at[k] === 0) at[k] = distinct.push(k + min) - 1
    // -0 lands on 0's slot: equal values share a rank, as SQL compares them.
    return { distinct: Float64Array.from(distinct), rankOf: (v) => at[v - min]! }
  }
  const sorted = Float64Array.from(values).sort()
  let d = 0
  for (let i = 0; i < sorted.length; i++) {
    const v = sorted[i]!
    if (Number.isNaN(v)) break
    if (d === 0 || sorted[d - 1] !== v) sorted[d++] = v
  }
  const distinct = sorted.slice(0, d)
  return {
    distinct,
    rankOf: (v) => {
      let lo = 0
      let hi = distinct.length - 1
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (distinct[mid]! < v) lo = mid + 1
        else hi = mid
      }
      return lo
    }
  }
}
