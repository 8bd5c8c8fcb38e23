import { describe, expect, it } from 'vitest'
import { MAX_SCROLL_PX, scrollTopForRow, scrollTopToReveal, spacerHeight, windowAt } from '../../../src/renderer/src/lib/virtualScroll'

const small = { total: 1000, rowHeight: 30, viewportHeight: 600 }
const huge = { total: 1_000_000, rowHeight: 30, viewportHeight: 600 }

describe('virtual list geometry', () => {
  it('a short list scrolls one pixel per pixel', () => {
    expect(spacerHeight(small)).toBe(30_000)
    expect(windowAt(0, small)).toEqual({ first: 0, shiftPx: 0, count: 21 })
    const w = windowAt(3015, small)
    expect(w.first).toBe(100)
    expect(w.shiftPx).toBeCloseTo(15)
    expect(scrollTopForRow(100, small)).toBe(3000)
  })

  it('a million rows fit under the browser height limit by scaling', () => {
    expect(huge.total * huge.rowHeight).toBeGreaterThan(MAX_SCROLL_PX)
    expect(spacerHeight(huge)).toBe(MAX_SCROLL_PX)
    const end = spacerHeight(huge) - huge.viewportHeight
    const last = windowAt(end, huge)
    expect(last.first + Math.floor(huge.viewportHeight / huge.rowHeight)).toBe(huge.total)
    expect(last.first + last.count).toBeLessThanOrEqual(huge.total)
    const mid = windowAt(end / 2, huge)
    expect(Math.abs(mid.first - (huge.total - 20) / 2)).toBeLessThan(2)
  })

  it('scrolling to a row and reading the window back agree, scaled or not', () => {
    for (const row of [0, 1, 12_345, 500_000, 999_979]) {
      const top = scrollTopForRow(row, huge)
      expect(windowAt(top, huge).first).toBe(row)
    }
  })

  it('reveals a row below the view at the bottom edge, above it at the top edge', () => {
    expect(scrollTopToReveal(5, 0, small)).toBeNull()
    const down = scrollTopToReveal(40, 0, small)
    expect(down).not.toBeNull()
    const w = windowAt(down ?? 0, small)
    expect(w.first + 19).toBe(40)
    const up = scrollTopToReveal(3, 3000, small)
    expect(windowAt(up ?? -1, small).first).toBe(3)
  })

  it('never draws past the end or for an empty set', () => {
    expect(windowAt(0, { total: 0, rowHeight: 30, viewportHeight: 600 }).count).toBe(0)
    expect(windowAt(99_999, { total: 5, rowHeight: 30, viewportHeight: 600 })).toEqual({ first: 0, shiftPx: 0, count: 5 })
  })
})
