import { describe, expect, it } from 'vitest'
import {
  estimateFrom,
  estimateMemberships,
  groupRequests,
  membershipPasses,
  passScope,
  SyncEngine,
  type MembershipCountSource
} from '../../../../src/core/sync'

const LIMIT = { requests: 60, perSeconds: 60 }
const HOUR = 3_600_000
const RANGE = { from: 0, to: 100 * HOUR }
const TYPES = Array.from({ length: 10 }, (_, i) => ({ value: `T${i}`, description: '' }))

/** A cache of `perHour` calls every hour of the range, with the given scope coverage and members. */
function source(perHour: number, coverage = new Map<string, Array<[number, number]>>(), membersShare = 0.5): MembershipCountSource {
  const calls = (from: number, to: number): number => Math.round((Math.max(0, Math.min(to, RANGE.to) - Math.max(from, 0)) / HOUR) * perHour)
  return {
    countCalls: calls,
    countMembers: (_key, from, to) => Math.round(calls(from, to) * membersShare),
    coverage: (key) => coverage.get(key) ?? []
  }
}

describe('membership estimate', () => {
  it('a group reads its calls once at 500 a request, plus a short page per pass and one per window move', () => {
    expect(groupRequests({ passes: 10, calls: 100_000 })).toBe(200 + 10 + 10)
    expect(groupRequests({ passes: 1, calls: 0 })).toBe(1)
    expect(groupRequests({ passes: 0, calls: 5_000 })).toBe(0)
  })

  it('types and directions partition the calls; answered and new requests read at most the calls', async () => {
    const passes = membershipPasses(TYPES, [
      { value: 1, name: 'in' },
      { value: 2, name: '' }
    ])
    expect(passes).toHaveLength(14)
    const est = await estimateMemberships(source(1_000), RANGE, passes, LIMIT, { lookbackMs: 48 * HOUR })
    // 100,000 calls: types 200+10+10, answered 200+1+10, new requests 200+1+10, directions 200+2+10.
    expect(est).toMatchObject({ passes: 14, calls: 400_000, requests: 220 + 211 + 211 + 212, fullSyncRequests: 1_010 })
    expect(est.seconds).toBe(est.requests)
  })

  it('a pass already covering the range fetches only its look-back; answered counts its known members there', async () => {
    const passes = membershipPasses([], [])
    const covered = new Map<string, Array<[number, number]>>()
    for (const p of passes) covered.set(SyncEngine.keyOf(passScope(p, RANGE)), [[RANGE.from, RANGE.to]])
    const est = await estimateMemberships(source(1_000, covered, 0.5), RANGE, passes, LIMIT, { lookbackMs: 10 * HOUR })
    // 10 hours of look-back: 10,000 calls, half of them known members of each scope.
    expect(est.calls).toBe(5_000 + 5_000)
    const full = await estimateMemberships(source(1_000, covered, 0.5), RANGE, passes, LIMIT, { lookbackMs: 10 * HOUR, mode: 'full' })
    expect(full.calls).toBe(100_000)
  })

  it('states the seconds at the tenant limit and a full sync for comparison', () => {
    const e = estimateFrom(RANGE, [{ passes: 2, calls: 1_000 }], 1_000, { requests: 10, perSeconds: 60 })
    expect(e).toMatchObject({ requests: 4, seconds: 24, fullSyncRequests: 10 })
  })
})
