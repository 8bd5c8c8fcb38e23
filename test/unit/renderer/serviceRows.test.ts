import { describe, expect, it } from 'vitest'
import { rowNumber, termsToHighlight } from '../../../src/renderer/src/lib/serviceRows'

describe('service mode rows', () => {
  it('numbers page 2 of the service from 101, the local list from 1', () => {
    expect(rowNumber('service', 100, 0)).toBe(101)
    expect(rowNumber('service', 100, 99)).toBe(200)
    expect(rowNumber('service', 0, 0)).toBe(1)
    expect(rowNumber('local', 100, 0)).toBe(1)
  })

  it('marks no text the service did not search for', () => {
    expect(termsToHighlight('service', ['fatura'])).toEqual([])
    expect(termsToHighlight('local', ['fatura'])).toEqual(['fatura'])
  })
})
