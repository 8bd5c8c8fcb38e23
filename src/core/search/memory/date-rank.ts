/** Every call id in date order (call_at, call_id; oldest first), and each id's place in it. */
export interface DateOrder {
  order: Int32Array
  /** rank[id]: the id's position in `order`; −1 where no call has the id. Sized to the largest id + 1. */
  rank: Int32Array
}

/** The place of each id in `order` (−1: no call has the id), sized to its largest id + 1. */
export function rankOf(order: Int32Array): Int32Array {
  let size = 0
  for (let k = 0; k < order.length; k++) if (order[k]! >= size) size = order[k]! + 1
  const rank = new Int32Array(size).fill(-1)
  for (let k = 0; k < order.length; k++) rank[order[k]!] = k
  return rank
}

/**
 * These calls in date order (newest first when `desc`), by sorting their places: a call not
 * in the order is left out. What the SQL path gets by reading each call's row for its date.
 */
export function inDateOrder(ids: readonly number[], { order, rank }: DateOrder, desc: boolean): number[] {
  const places = new Int32Array(ids.length)
  let n = 0
  for (const id of ids) {
    const r = id >= 0 && id < rank.length ? rank[id]! : -1
    if (r >= 0) places[n++] = r
  }
  const sorted = places.subarray(0, n).sort()
  const out = new Array<number>(n)
  for (let k = 0; k < n; k++) out[k] = order[sorted[desc ? n - 1 - k : k]!]!
  return out
}
