import { describe, expect, it } from 'vitest'
import {
  openRow,
  allSelection,
  clickRow,
  emptySelection,
  isSelected,
  selectedCount,
  selectedOffsets,
  type Selection
} from '../../../src/renderer/src/lib/selection'

const plain = { shift: false, toggle: false }
const shift = { shift: true, toggle: false }
const toggle = { shift: false, toggle: true }
const both = { shift: true, toggle: true }
const TOTAL = 1_000_000

function offsets(sel: Selection, total = TOTAL): number[] {
  return [...selectedOffsets(sel, total)]
}

describe('selection over a result set', () => {
  it('a plain click selects only that row and sets the anchor', () => {
    let s = clickRow(emptySelection(), 5, plain, TOTAL)
    s = clickRow(s, 9, plain, TOTAL)
    expect(offsets(s)).toEqual([9])
    expect(s.anchor).toBe(9)
  })

  it('shift-click selects from the anchor, in either direction, replacing the rest', () => {
    let s = clickRow(emptySelection(), 10, plain, TOTAL)
    s = clickRow(s, 13, shift, TOTAL)
    expect(offsets(s)).toEqual([10, 11, 12, 13])
    s = clickRow(s, 8, shift, TOTAL)
    expect(offsets(s)).toEqual([8, 9, 10])
    expect(s.anchor).toBe(10)
  })

  it('ctrl/cmd-click toggles one row and moves the anchor', () => {
    let s = clickRow(emptySelection(), 2, plain, TOTAL)
    s = clickRow(s, 4, toggle, TOTAL)
    s = clickRow(s, 6, toggle, TOTAL)
    expect(offsets(s)).toEqual([2, 4, 6])
    s = clickRow(s, 4, toggle, TOTAL)
    expect(offsets(s)).toEqual([2, 6])
    expect(s.anchor).toBe(4)
  })

  it('ctrl+shift-click adds a range to what is selected', () => {
    let s = clickRow(emptySelection(), 1, plain, TOTAL)
    s = clickRow(s, 20, toggle, TOTAL)
    s = clickRow(s, 22, both, TOTAL)
    expect(offsets(s)).toEqual([1, 20, 21, 22])
  })

  it('toggling inside a range splits it and merging keeps ranges disjoint', () => {
    let s = clickRow(emptySelection(), 0, plain, TOTAL)
    s = clickRow(s, 9, shift, TOTAL)
    s = clickRow(s, 5, toggle, TOTAL)
    expect(s.ranges).toEqual([
      [0, 4],
      [6, 9]
    ])
    s = clickRow(s, 5, toggle, TOTAL)
    expect(s.ranges).toEqual([[0, 9]])
  })

  it('a shift range over a million rows stays one range, not a million ids', () => {
    let s = clickRow(emptySelection(), 0, plain, TOTAL)
    s = clickRow(s, TOTAL - 1, shift, TOTAL)
    expect(s.ranges).toHaveLength(1)
    expect(selectedCount(s, TOTAL)).toBe(TOTAL)
    expect(isSelected(s, 654_321)).toBe(true)
  })

  it('"select all results" is a flag; toggling a row out of it becomes explicit ranges', () => {
    let s = allSelection()
    expect(selectedCount(s, 250)).toBe(250)
    expect(isSelected(s, 249)).toBe(true)
    s = clickRow(s, 100, toggle, 250)
    expect(s.all).toBe(false)
    expect(selectedCount(s, 250)).toBe(249)
    expect(isSelected(s, 100)).toBe(false)
  })

  it('finds membership by binary search across many ranges', () => {
    let s = emptySelection()
    for (let i = 0; i < 2000; i += 2) s = clickRow(s, i, toggle, TOTAL)
    expect(s.ranges).toHaveLength(1000)
    expect(isSelected(s, 1234)).toBe(true)
    expect(isSelected(s, 1235)).toBe(false)
    expect(isSelected(s, 5000)).toBe(false)
    expect(selectedCount(s, TOTAL)).toBe(1000)
  })

  it('counts only rows that exist when the result set shrank', () => {
    let s = clickRow(emptySelection(), 5, plain, TOTAL)
    s = clickRow(s, 15, shift, TOTAL)
    expect(selectedCount(s, 10)).toBe(5)
    expect(offsets(s, 10)).toEqual([5, 6, 7, 8, 9])
  })

  it('opening a row keeps a hand-built selection and starts the next shift range there', () => {
    let s = clickRow(emptySelection(), 2, toggle, TOTAL)
    s = clickRow(s, 5, toggle, TOTAL)
    s = openRow(s, 8)
    expect(offsets(s, 20)).toEqual([2, 5])
    s = clickRow(s, 10, both, TOTAL)
    expect(offsets(s, 20)).toEqual([2, 5, 8, 9, 10])
  })
})
