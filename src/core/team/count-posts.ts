/**
 * A chunk's postings of one term, as `count_posts.posts` holds them: the in-chunk offsets of
 * the calls that have the term, as sorted uint16 little-endian when they are few, else as a
 * bitmap of the whole chunk; the length tells which (a list is always shorter than the
 * bitmap). In memory a set is the bitmap, 32 offsets a word.
 */

/** The bitmap's bytes for a chunk of 2^bits calls. */
export const bitmapBytes = (bits: number): number => (1 << bits) >> 3

/** Offsets (sorted, distinct, each < 2^bits) as stored. */
export function encodePosts(offsets: ArrayLike<number>, bits: number): Buffer {
  const size = bitmapBytes(bits)
  // A list as long as the bitmap would read as one.
  if (offsets.length * 2 < size) {
    const out = Buffer.allocUnsafe(offsets.length * 2)
    for (let i = 0; i < offsets.length; i++) out.writeUInt16LE(offsets[i]!, i * 2)
    return out
  }
  const out = Buffer.alloc(size)
  for (let i = 0; i < offsets.length; i++) out[offsets[i]! >> 3]! |= 1 << (offsets[i]! & 7)
  return out
}

/** A set as stored (encodePosts of its offsets), without listing a large one's offsets. */
export function encodeSet(set: Uint32Array, bits: number): Buffer {
  if (popcount(set) * 2 < bitmapBytes(bits)) return encodePosts(offsetsOf(set), bits)
  const out = Buffer.alloc(bitmapBytes(bits))
  for (let i = 0; i < out.length; i++) out[i] = (set[i >> 2]! >>> ((i & 3) * 8)) & 0xff
  return out
}

/** An empty set for a chunk of 2^bits calls. */
export const emptySet = (bits: number): Uint32Array => new Uint32Array(Math.max(1, (1 << bits) >> 5))

/** Stored postings into `into` (ORed). */
export function orPosts(into: Uint32Array, posts: Uint8Array, bits: number): void {
  if (posts.length === bitmapBytes(bits)) {
    for (let i = 0; i < posts.length; i++) if (posts[i] !== 0) into[i >> 2]! |= posts[i]! << ((i & 3) * 8)
    return
  }
  for (let i = 0; i + 1 < posts.length; i += 2) {
    const o = posts[i]! | (posts[i + 1]! << 8)
    into[o >> 5]! |= 1 << (o & 31)
  }
}

export function andInto(a: Uint32Array, b: Uint32Array): void {
  for (let i = 0; i < a.length; i++) a[i]! &= b[i]!
}

export function orInto(a: Uint32Array, b: Uint32Array): void {
  for (let i = 0; i < a.length; i++) a[i]! |= b[i]!
}

/** `universe` without `a`, into `a`. */
export function notWithin(a: Uint32Array, universe: Uint32Array): void {
  for (let i = 0; i < a.length; i++) a[i] = universe[i]! & ~a[i]!
}

export function popcount(a: Uint32Array): number {
  let n = 0
  for (let i = 0; i < a.length; i++) {
    let v = a[i]!
    if (v === 0) continue
    v -= (v >>> 1) & 0x55555555
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
    n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
  }
  return n
}

/** The set's offsets, ascending. */
export function offsetsOf(a: Uint32Array): number[] {
  const out: number[] = []
  for (let i = 0; i < a.length; i++) {
    let v = a[i]!
    while (v !== 0) {
      const low = v & -v
      out.push(i * 32 + 31 - Math.clz32(low))
      v ^= low
    }
  }
  return out
}
