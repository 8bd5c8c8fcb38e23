import { describe, expect, it } from 'vitest'
import { bitFor, countBits, withBit } from '../../../../src/core/search/memory/bits'

describe('call-type bit masks', () => {
  it('keeps bit 31 unsigned', () => {
    expect(bitFor(0)).toBe(1)
    expect(bitFor(31)).toBe(2 ** 31)
    expect(withBit(bitFor(31), 0)).toBe(2 ** 31 + 1)
    expect(withBit(0xffff_ffff, 31)).toBe(0xffff_ffff)
    expect(new Uint32Array([withBit(withBit(0, 31), 30)])[0]).toBe(2 ** 31 + 2 ** 30)
  })

  it('counts every set bit once, whatever the mask', () => {
    const counts = new Uint32Array(32)
    for (const mask of [0, 1, 0b1010, 2 ** 31, 0xffff_ffff]) countBits(mask, counts)
    const want = new Array<number>(32).fill(1)
    for (const bit of [0, 1, 3, 31]) want[bit] = 2
    expect([...counts]).toEqual(want)
  })
})
