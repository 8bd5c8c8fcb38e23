import { describe, expect, it } from 'vitest'
import { andInto, andNotInto, countOnes, notWithin, orInto } from '../../../../src/core/search/memory/byte-ops'
import { prng } from '../../../support/prng'

/**
 * Byte-set operations four bytes at a time (byte-ops.ts) against the same done byte by byte,
 * on sets of every length near a word's (the tail) and at offsets that are not a word's
 * (a window's subarray: byte by byte throughout).
 */
function sets(n: number, offset: number, seed: number): [Uint8Array, Uint8Array] {
  const r = prng(seed)
  const make = (): Uint8Array => {
    const whole = new Uint8Array(n + offset)
    for (let i = 0; i < whole.length; i++) whole[i] = r() < 0.5 ? 1 : 0
    return whole.subarray(offset)
  }
  return [make(), make()]
}

describe('byte-set operations', () => {
  const shapes: Array<[number, number]> = []
  for (const n of [0, 1, 3, 4, 5, 7, 8, 9, 64, 1001]) for (const offset of [0, 1, 2, 4]) shapes.push([n, offset])

  it.each(shapes)('%i bytes at offset %i equal the byte-by-byte answers', (n, offset) => {
    const [a, b] = sets(n, offset, n * 7 + offset)
    const and = a.slice()
    andInto(and, b)
    expect([...and]).toEqual([...a].map((x, i) => x & b[i]!))
    const or = a.slice()
    orInto(or, b)
    expect([...or]).toEqual([...a].map((x, i) => x | b[i]!))
    const andNot = a.slice()
    andNotInto(andNot, b)
    expect([...andNot]).toEqual([...a].map((x, i) => x & (b[i]! ^ 1)))
    // In place on the subarray too: the complement of a within b.
    const [c, u] = sets(n, offset, n * 11 + offset)
    const expected = [...c].map((x, i) => u[i]! & (x ^ 1))
    notWithin(c, u)
    expect([...c]).toEqual(expected)
    expect(countOnes(a)).toBe([...a].reduce((s, x) => s + x, 0))
  })

  it('counts four set bytes in a word (the largest sum a word holds)', () => {
    expect(countOnes(new Uint8Array(4096).fill(1))).toBe(4096)
    expect(countOnes(new Uint8Array(4097).fill(1).subarray(1))).toBe(4096)
  })
})
