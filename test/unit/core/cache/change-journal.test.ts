import { describe, expect, it } from 'vitest'
import { ChangeJournal } from '../../../../src/core/cache/change-journal'

describe('ChangeJournal', () => {
  it('gathers the new calls and the touched ones after a write count', () => {
    const j = new ChangeJournal()
    j.record(1, 10, [])
    j.record(2, null, [3, 4])
    j.record(3, 25, [5])
    expect(j.since(0, 3)).toEqual({ newFrom: 10, touched: [3, 4, 5] })
    expect(j.since(1, 3)).toEqual({ newFrom: 25, touched: [3, 4, 5] })
    expect(j.since(3, 3)).toEqual({ newFrom: null, touched: [] })
    // From the future: not known.
    expect(j.since(4, 3)).toBeNull()
  })

  it('forgets the oldest writes past its limits, and says so', () => {
    const j = new ChangeJournal({ writes: 2, touched: 3 })
    j.record(1, null, [1])
    j.record(2, null, [2])
    j.record(3, null, [3])
    expect(j.since(0, 3)).toBeNull()
    expect(j.since(1, 3)).toEqual({ newFrom: null, touched: [2, 3] })
    j.record(4, null, [4, 5, 6])
    expect(j.since(2, 4)).toBeNull()
    expect(j.since(3, 4)).toEqual({ newFrom: null, touched: [4, 5, 6] })
  })

  it('knows nothing from before a restart (the cache was emptied)', () => {
    const j = new ChangeJournal()
    j.record(1, 1, [])
    j.restart(2)
    expect(j.since(1, 2)).toBeNull()
    expect(j.since(2, 2)).toEqual({ newFrom: null, touched: [] })
  })
})
