/**
 * Call-type bit masks: bit t of a call's mask says a scope of type t returned it. JavaScript
 * bit operators work on signed 32-bit integers, so `1 << 31` is negative; `>>> 0` turns a
 * result back into the unsigned value a Uint32Array holds.
 */

/** The most types one mask holds. */
export const MASK_BITS = 32

/** The mask with only bit t set, unsigned. */
export const bitFor = (t: number): number => (1 << t) >>> 0

/** `mask` with bit t set, unsigned. */
export const withBit = (mask: number, t: number): number => (mask | bitFor(t)) >>> 0

/**
 * Adds 1 to counts[t] for every bit t set in `mask`, in a step per set bit: `m & -m` isolates
 * the lowest set bit (two's complement), 31 − clz32 gives its index, and `m ^= low` clears it.
 */
export function countBits(mask: number, counts: Uint32Array | number[]): void {
  let m = mask
  while (m !== 0) {
    const low = m & -m
    counts[31 - Math.clz32(low)]!++
    m ^= low
  }
}
