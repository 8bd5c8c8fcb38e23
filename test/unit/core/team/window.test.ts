import { describe, expect, it } from 'vitest'
import { backfillDone, DAY_MS, planWindow, windowStart, type WindowState } from '../../../../src/core/team'

const held = (heldFrom: number | null, backfill: WindowState['backfill'] = null, days: number | null = 90): WindowState => ({
  days,
  heldFrom,
  backfill
})

describe('window arithmetic', () => {
  it('starts N whole days before now; everything has no start', () => {
    expect(windowStart(90, 100 * DAY_MS)).toBe(10 * DAY_MS)
    expect(windowStart(1, DAY_MS + 5)).toBe(5)
    expect(windowStart(null, 123)).toBeNull()
  })

  it('a cache that never pulled starts at the window, with nothing to fetch back', () => {
    expect(planWindow(held(null, null, null), 90, 500, 0)).toEqual({ dropBefore: 500, state: held(500) })
    expect(planWindow(held(null, null, null), null, null, 0)).toEqual({ dropBefore: null, state: held(null, null, null) })
  })

  it('the start moving on drops what left', () => {
    expect(planWindow(held(500), 90, 600, 42)).toEqual({ dropBefore: 600, state: held(600) })
  })

  it('the same start drops nothing and fetches nothing', () => {
    expect(planWindow(held(500), 90, 500, 42)).toEqual({ dropBefore: null, state: held(500) })
  })

  it('a cache that held everything drops before the new window', () => {
    expect(planWindow(held(null, null, null), 90, 500, 42)).toEqual({ dropBefore: 500, state: held(500) })
  })

  it('widening fetches back [new start, held start) up to the cursor', () => {
    expect(planWindow(held(500), 180, 200, 42)).toEqual({
      dropBefore: null,
      state: held(500, { from: 200, to: 500, upTo: 42, after: 0 }, 180)
    })
    // Everything: from the first call on.
    expect(planWindow(held(500), null, null, 42).state.backfill).toEqual({ from: null, to: 500, upTo: 42, after: 0 })
  })

  it('a backfill under way shrinks when the start moves past part of it, and ends when past all of it', () => {
    const under = held(500, { from: 200, to: 500, upTo: 42, after: 7 })
    expect(planWindow(under, 90, 300, 50)).toEqual({ dropBefore: 300, state: held(500, { from: 300, to: 500, upTo: 42, after: 7 }) })
    expect(planWindow(under, 90, 550, 50)).toEqual({ dropBefore: 550, state: held(550) })
  })

  it('a backfill under way is kept as it is when the start is lower still, then widened again once done', () => {
    const under = held(500, { from: 200, to: 500, upTo: 42, after: 7 })
    const plan = planWindow(under, 365, 100, 50)
    expect(plan).toEqual({ dropBefore: null, state: held(500, { from: 200, to: 500, upTo: 42, after: 7 }, 365) })
    expect(backfillDone(plan.state, 100, 50)).toEqual(held(200, { from: 100, to: 200, upTo: 50, after: 0 }, 365))
    expect(backfillDone(held(200, { from: 100, to: 200, upTo: 50, after: 9 }, 365), 100, 50)).toEqual(held(100, null, 365))
  })
})
