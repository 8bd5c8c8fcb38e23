import { describe, expect, it } from 'vitest'
import { scoreOf, share } from '../../../../src/core/review/scoring'
import { sample } from '../../../../src/core/review/sampling'
import type { Criterion } from '../../../../src/shared/review'

const criteria: Criterion[] = [
  { id: 'a', name: 'A', weight: 1, scale: 'yes_no', critical: false },
  { id: 'b', name: 'B', weight: 3, scale: '0_10', critical: false },
  { id: 'c', name: 'C', weight: 1, scale: '1_5', critical: true }
]

describe('scoring', () => {
  it('maps each scale onto 0–1', () => {
    expect([share('yes_no', 0), share('yes_no', 1), share('1_5', 1), share('1_5', 3), share('0_10', 7)]).toEqual([0, 1, 0, 0.5, 0.7])
  })
  it('weights the answered criteria only, and a failed critical one makes the total 0', () => {
    expect(scoreOf('s', 1, criteria, { a: 1, b: 5 }).total).toBe(62.5)
    expect(scoreOf('s', 1, criteria, { a: null }).total).toBeNull()
    expect(scoreOf('s', 1, criteria, { a: 1, b: 10, c: 2 })).toMatchObject({ total: 0, failed: true })
    expect(scoreOf('s', 1, criteria, { a: 1, b: 10, c: 3 })).toMatchObject({ total: 90, failed: false })
  })
  it('refuses answers off the scale and unknown criteria', () => {
    expect(() => scoreOf('s', 1, criteria, { a: 2 })).toThrow(/from 0 to 1/)
    expect(() => scoreOf('s', 1, criteria, { c: 0 })).toThrow(/from 1 to 5/)
    expect(() => scoreOf('s', 1, criteria, { z: 1 })).toThrow(/no criterion/)
  })
})

describe('sampling', () => {
  const DAY = 86_400_000
  const calls = Array.from({ length: 300 }, (_, i) => ({
    callId: `c${i}`,
    callAt: Date.UTC(2026, 0, 1) + Math.floor(i / 30) * DAY + (i % 30) * 60_000
  }))

  it('draws a share, repeatably by seed, in the search order', () => {
    const s = sample(calls, { kind: 'percent', percent: 10, seed: 3 }, 'UTC')
    expect(s).toHaveLength(30)
    expect(sample(calls, { kind: 'percent', percent: 10, seed: 3 }, 'UTC')).toEqual(s)
    expect(sample(calls, { kind: 'percent', percent: 10, seed: 4 }, 'UTC')).not.toEqual(s)
    const order = s.map((id) => Number(id.slice(1)))
    expect(order).toEqual([...order].sort((x, y) => x - y))
    expect(sample(calls.slice(0, 3), { kind: 'percent', percent: 1, seed: 1 }, 'UTC')).toHaveLength(1)
    expect(sample([], { kind: 'percent', percent: 50, seed: 1 }, 'UTC')).toEqual([])
  })
  it('draws N per day in the zone asked for', () => {
    const s = sample(calls, { kind: 'perDay', perDay: 2, seed: 1 }, 'UTC')
    expect(s).toHaveLength(20)
    const days = new Map<number, number>()
    for (const id of s) {
      const d = Math.floor(Number(id.slice(1)) / 30)
      days.set(d, (days.get(d) ?? 0) + 1)
    }
    expect([...days.values()].every((n) => n === 2)).toBe(true)
    // In Kolkata (UTC+5:30) no call crosses midnight here either, but the days differ in name only.
    expect(sample(calls, { kind: 'perDay', perDay: 100, seed: 1, zone: 'Asia/Kolkata' }, 'UTC')).toHaveLength(300)
  })
})
