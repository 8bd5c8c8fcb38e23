import { describe, expect, it } from 'vitest'
import { parseIntList } from '../../../../src/core/cache'

describe('parseIntList', () => {
  it('reads group_concat output, negatives included', () => {
    expect([...parseIntList('1,22,-3,0,2147483647,-2147483648')]).toEqual([1, 22, -3, 0, 2147483647, -2147483648])
  })
  it('reads nothing as an empty list', () => {
    expect(parseIntList(null)).toHaveLength(0)
    expect(parseIntList('')).toHaveLength(0)
    expect([...parseIntList('7')]).toEqual([7])
  })
})
