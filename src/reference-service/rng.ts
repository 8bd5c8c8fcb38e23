/**
 * Small, fast, seedable randomness. Everything the generator produces is a pure function of
 * (seed, call key, version), so a call's text can be rebuilt at serve time instead of stored.
 */

/** Mixes integers into a well-spread 32-bit hash (murmur3 finaliser over a running state). */
export function mix(...parts: number[]): number {
  let h = 0x9e3779b9
  for (const p of parts) {
    h = Math.imul(h ^ (p >>> 0), 0x85ebca6b)
    h ^= h >>> 13
    h = Math.imul(h, 0xc2b2ae35)
    h ^= h >>> 16
  }
  return h >>> 0
}

/** Hashes a string to 32 bits (FNV-1a), for tenant salts and names. */
export function hashString(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h >>> 0
}

/** mulberry32: a 32-bit generator, good enough for synthetic data and very fast. */
export class Rng {
  private state: number
  constructor(seed: number) {
    this.state = seed >>> 0
  }
  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)] as T
  }
  chance(p: number): boolean {
    return this.next() < p
  }
  digits(n: number): string {
    let s = ''
    for (let i = 0; i < n; i++) s += String(Math.floor(this.next() * 10))
    return s
  }
}

/** Picks an index from cumulative weights (ascending, last = total) with one draw. */
export function pickWeighted(cumulative: Float64Array | readonly number[], r: number): number {
  const total = cumulative[cumulative.length - 1] as number
  const x = r * total
  let lo = 0
  let hi = cumulative.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((cumulative[mid] as number) > x) hi = mid
    else lo = mid + 1
  }
  return lo
}

export function cumulate(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length)
  let sum = 0
  weights.forEach((w, i) => {
    sum += w
    out[i] = sum
  })
  return out
}
