import { describe, expect, it } from 'vitest'
import { NO_CALL } from '../../../../src/core/search/memory/columns'
import { mergeDateOrder } from '../../../../src/core/search/paging/date-order'
import { rankNumbers } from '../../../../src/core/search/memory/number-ranks'
import { prng } from '../../../support/prng'

// The date order after writes, merged from the order before them, against a full sort of
// the calls after them (call_at, then call_id), as SQL orders them.

const Q = 15 * 60_000
const T0 = Date.UTC(2026, 0, 1)

interface Call {
  at: number
  callId: string
}

const cmp = (calls: Map<number, Call>) => (a: number, b: number) => {
  const x = calls.get(a)!
  const y = calls.get(b)!
  return x.at - y.at || (x.callId < y.callId ? -1 : x.callId > y.callId ? 1 : 0)
}

function fullOrder(calls: Map<number, Call>): Int32Array {
  return Int32Array.from([...calls.keys()].sort(cmp(calls)))
}

function quartersOf(calls: Map<number, Call>, size: number): Int32Array {
  const q = new Int32Array(size).fill(NO_CALL)
  for (const [id, c] of calls) q[id] = Math.floor(c.at / Q)
  return q
}

/** `reads` counts the ids the merge read again (what it saves against reading them all). */
function merged(before: Int32Array, calls: Map<number, Call>, changed: number[], reads: { ids: number }): Int32Array | null {
  const size = Math.max(...calls.keys()) + 8
  const read = (from: number, to: number): Int32Array => {
    const ids = [...calls.entries()].filter(([, c]) => c.at >= from && c.at < to).map(([id]) => id)
    reads.ids += ids.length
    return Int32Array.from(ids.sort(cmp(calls)))
  }
  return mergeDateOrder(before, quartersOf(calls, size), changed, read, Q, NO_CALL)
}

function makeCalls(n: number, r: () => number, spanDays: number): Map<number, Call> {
  const calls = new Map<number, Call>()
  for (let id = 1; id <= n; id++) {
    // Many share a second (ties by callId), some before 1970 (negative quarters).
    const at = (id % 50 === 0 ? -T0 : T0) + Math.floor(r() * spanDays * 86_400) * 1000
    calls.set(id, { at, callId: `c${Math.floor(r() * 1e6).toString(36)}` })
  }
  return calls
}

describe('the date order merged after writes', () => {
  it.each([
    ['a sync of new calls in the last day', 1, 0],
    ['new calls anywhere in the year', 365, 0],
    ['new calls and calls whose time changed', 2, 40],
    ['only changed calls', 0, 60]
  ])('equals the full order: %s', (_name, newSpanDays, touchedCount) => {
    for (let seed = 1; seed <= 6; seed++) {
      const r = prng(seed)
      const calls = makeCalls(3_000, r, 365)
      const before = fullOrder(calls)
      const changed: number[] = []
      let next = 3_001
      for (let k = 0; k < (newSpanDays > 0 ? 300 : 0); k++) {
        const at = T0 + 364 * 86_400_000 + Math.floor(r() * newSpanDays * 86_400) * 1000 - (newSpanDays - 1) * 86_400_000
        // Some new calls tie in time with another: the one before it (a day's sync), or an old one.
        const other = newSpanDays === 1 ? (k > 0 ? next - 1 : 1) : 1 + Math.floor(r() * 3_000)
        const tie = r() < 0.2 ? calls.get(other)!.at : at
        calls.set(next, { at: tie, callId: `n${k}` })
        changed.push(next++)
      }
      for (let k = 0; k < touchedCount; k++) {
        const id = 1 + Math.floor(r() * 3_000)
        calls.set(id, { ...calls.get(id)!, at: T0 + Math.floor(r() * 365 * 86_400) * 1000 })
        changed.push(id)
      }
      const reads = { ids: 0 }
      const got = merged(before, calls, changed, reads)
      expect(got, `seed ${seed}`).not.toBeNull()
      expect([...got!], `seed ${seed}`).toEqual([...fullOrder(calls)])
      // A day's sync reads again its day, not the year.
      if (newSpanDays === 1 && touchedCount === 0) expect(reads.ids).toBeLessThan(calls.size / 10)
    }
  })

  it('keeps the order when nothing changed, and reads nothing', () => {
    const calls = makeCalls(500, prng(3), 30)
    const before = fullOrder(calls)
    const reads = { ids: 0 }
    expect([...merged(before, calls, [], reads)!]).toEqual([...before])
    expect(reads.ids).toBe(0)
  })

  it('gives up (read it all) when the writes are spread over too many stretches', () => {
    const calls = makeCalls(2_000, prng(4), 400)
    const before = fullOrder(calls)
    // 500 changed calls two days apart each: more stretches than are worth reading one by one.
    const spread = [...calls.keys()].filter((id) => id % 4 === 0)
    for (const id of spread) calls.set(id, { ...calls.get(id)!, at: T0 + id * 86_400_000 * 2 })
    expect(merged(before, calls, spread, { ids: 0 })).toBeNull()
  })
})

describe('numeric ranks', () => {
  it.each([
    ['small whole numbers', [5, 3, 3, -2, 100, 0, -0, Number.NaN, 5]],
    ['fractions and large values', [0.5, 1e12, -1e12, 0.25, 0.5, Number.NaN, 7, 1e-9]]
  ])('ranks %s as a sort of the distinct values does', (_name, values) => {
    const { distinct, rankOf } = rankNumbers(Float64Array.from(values))
    const want = [...new Set(values.filter((v) => !Number.isNaN(v)).map((v) => (Object.is(v, -0) ? 0 : v)))].sort((a, b) => a - b)
    expect([...distinct]).toEqual(want)
    for (const v of values) if (!Number.isNaN(v)) expect(distinct[rankOf(v)]).toBe(v === 0 ? 0 : v)
  })
})
