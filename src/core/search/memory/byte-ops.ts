/**
 * Operations on byte sets (a byte per call id, 0 or 1) four bytes at a time: at 5,000,000
 * calls a byte-by-byte AND, OR or sum is 5,000,000 steps, most of a count's time once every
 * term's set is at hand. A byte holds only 0 or 1, so a 32-bit word's AND, OR and AND-NOT
 * are each byte's, and a word's bytes sum without carries. Arrays whose offset is not a
 * multiple of 4 (a window's subarray) go byte by byte.
 */

/** The words over the first ⌊n / 4⌋·4 bytes of both, when both are aligned; else null. */
function words(a: Uint8Array, b: Uint8Array, n: number): [Uint32Array, Uint32Array] | null {
  if (a.byteOffset % 4 !== 0 || b.byteOffset % 4 !== 0 || n < 4) return null
  return [new Uint32Array(a.buffer, a.byteOffset, n >>> 2), new Uint32Array(b.buffer, b.byteOffset, n >>> 2)]
}

/** into[i] &= m[i] for every i below into.length. */
export function andInto(into: Uint8Array, m: Uint8Array): void {
  const n = into.length
  const w = words(into, m, n)
  let i = 0
  if (w !== null) {
    const [a, b] = w
    for (let k = 0; k < a.length; k++) a[k]! &= b[k]!
    i = a.length << 2
  }
  for (; i < n; i++) into[i]! &= m[i]!
}

/** into[i] |= m[i] for every i below into.length. */
export function orInto(into: Uint8Array, m: Uint8Array): void {
  const n = into.length
  const w = words(into, m, n)
  let i = 0
  if (w !== null) {
    const [a, b] = w
    for (let k = 0; k < a.length; k++) a[k]! |= b[k]!
    i = a.length << 2
  }
  for (; i < n; i++) into[i]! |= m[i]!
}

/** into[i] &= NOT m[i] for every i below into.length. */
export function andNotInto(into: Uint8Array, m: Uint8Array): void {
  const n = into.length
  const w = words(into, m, n)
  let i = 0
  if (w !== null) {
    const [a, b] = w
    for (let k = 0; k < a.length; k++) a[k]! &= ~b[k]!
    i = a.length << 2
  }
  for (; i < n; i++) into[i]! &= m[i]! ^ 1
}

/** m[i] = u[i] AND NOT m[i] for every i below m.length: the complement of m within u. */
export function notWithin(m: Uint8Array, u: Uint8Array): void {
  const n = m.length
  const w = words(m, u, n)
  let i = 0
  if (w !== null) {
    const [a, b] = w
    // ~a's bytes are 0xFF or 0xFE; AND with u's 0 or 1 leaves u's bit where a's was 0.
    for (let k = 0; k < a.length; k++) a[k] = b[k]! & ~a[k]!
    i = a.length << 2
  }
  for (; i < n; i++) m[i] = u[i]! & (m[i]! ^ 1)
}

/** How many bytes are 1. */
export function countOnes(m: Uint8Array): number {
  const n = m.length
  let total = 0
  let i = 0
  if (m.byteOffset % 4 === 0 && n >= 4) {
    const a = new Uint32Array(m.buffer, m.byteOffset, n >>> 2)
    // Multiplying by 0x01010101 sums the four bytes into the top one (at most 4: no carry).
    for (let k = 0; k < a.length; k++) total += Math.imul(a[k]!, 0x01010101) >>> 24
    i = a.length << 2
  }
  for (; i < n; i++) total += m[i]!
  return total
}
