import { describe, expect, it } from 'vitest'
import { pullPercent, pullSecondsLeft } from '../../../src/renderer/src/lib/progress'

const pulling = { phase: 'pulling' as const, calls: 250_000, totalCalls: 1_000_000, callsPerSecond: 12_500 }

describe('a team pull’s progress on the Sync screen', () => {
  it('is the share of the changed calls applied, whole once done', () => {
    expect(pullPercent(pulling)).toBe(25)
    expect(pullPercent({ ...pulling, calls: 1_000_400 })).toBe(100)
    expect(pullPercent({ ...pulling, calls: 0, totalCalls: 0 })).toBe(0)
    expect(pullPercent({ ...pulling, phase: 'done', calls: 0, totalCalls: 0 })).toBe(100)
  })

  it('says the time left at the rate so far, only while pulling and once a rate is known', () => {
    expect(pullSecondsLeft(pulling)).toBe(60)
    expect(pullSecondsLeft({ ...pulling, calls: 0, callsPerSecond: 0 })).toBeNull()
    expect(pullSecondsLeft({ ...pulling, callsPerSecond: 0 })).toBeNull()
    expect(pullSecondsLeft({ ...pulling, calls: 1_000_000 })).toBeNull()
    for (const phase of ['done', 'cancelled', 'failed'] as const) expect(pullSecondsLeft({ ...pulling, phase })).toBeNull()
  })
})
