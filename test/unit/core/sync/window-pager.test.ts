import { describe, expect, it } from 'vitest'
import type { CallRecord } from '../../../../src/shared/domain'
import { applyPage, initialPager, nextSlice, type PagerState } from '../../../../src/core/sync'
import { SERVICE_WINDOW } from '../../../../src/shared/service-limits'

/**
 * The pager is pure, so these tests drive it over an ordered list with the service's paging
 * rules (ascending by second, ties by callId, skip + take capped at 10,000). The engine's
 * integration tests run the same logic against the real reference service.
 */
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0)

function rec(callId: string, at: number): CallRecord {
  return { callId, callAt: at, callDate: new Date(at).toISOString(), title: '', summary: '', analysis: [], extra: {} }
}

type Order = 'oldest' | 'newest'

function ordered(list: CallRecord[], order: Order = 'oldest'): CallRecord[] {
  const sorted = [...list].sort((a, b) => a.callAt - b.callAt || (a.callId < b.callId ? -1 : a.callId > b.callId ? 1 : 0))
  return order === 'newest' ? sorted.reverse() : sorted
}

/** Newest first a window ends at a whole second, inclusive, as the service's end time does. */
function query(all: CallRecord[], from: number, to: number, skip: number, take: number, endInclusive = false) {
  const inRange = all.filter((r) => r.callAt >= from && (endInclusive ? r.callAt <= to : r.callAt < to))
  const lowered = Math.max(0, Math.min(take, SERVICE_WINDOW - skip))
  const items = inRange.slice(skip, skip + lowered)
  return { records: items, returned: items.length, totalCount: inRange.length }
}

function syncAll(
  data: () => CallRecord[],
  to: number,
  maxTake: number,
  opts: { between?: (page: number) => void; withTotal?: boolean; order?: Order } = {}
): { stored: string[]; state: PagerState; pages: number } {
  const newest = opts.order === 'newest'
  let state = initialPager(T0, newest ? { rangeTo: to } : undefined)
  const stored: string[] = []
  let pages = 0
  while (!state.done) {
    const slice = nextSlice(state, maxTake)
    const page = newest
      ? query(ordered(data(), 'newest'), slice.from, slice.to!, slice.skip, slice.take, true)
      : query(ordered(data()), slice.from, to, slice.skip, slice.take)
    const out = applyPage(state, slice, { ...page, totalCount: opts.withTotal ? page.totalCount : null }, to)
    stored.push(...out.fresh.map((r) => r.callId))
    state = out.next
    opts.between?.(++pages)
    if (pages > 10_000) throw new Error('no progress')
  }
  return { stored, state, pages }
}

describe.each(['oldest', 'newest'] as const)('the 10,000 window pager, %s first', (order) => {
  it('pages a range of 23,456 calls with dense seconds completely, without duplicates', () => {
    const list: CallRecord[] = []
    let n = 0
    for (let i = 0; i < 20_000; i++) list.push(rec(`c${String(n++).padStart(6, '0')}`, T0 + Math.floor(i / 3) * 1000))
    // Seconds holding hundreds of calls, one of them right where a window fills.
    for (const [sec, count] of [
      [100, 700],
      [3_333, 1_200],
      [5_000, 1_556]
    ] as const) {
      for (let i = 0; i < count; i++) list.push(rec(`d${String(n++).padStart(6, '0')}`, T0 + sec * 1000))
    }
    const to = T0 + 86_400_000
    for (const withTotal of [false, true]) {
      const { stored, state } = syncAll(() => list, to, 500, { withTotal, order })
      expect(stored.length).toBe(list.length)
      // Stored in the pass's order: a cancel at any page leaves that end of the range.
      expect(stored).toEqual(ordered(list, order).map((r) => r.callId))
      expect(new Set(stored).size).toBe(list.length)
      expect(state.windowsDone).toBeGreaterThanOrEqual(2)
      expect(state.dense).toEqual([])
    }
  })

  it('reports a second with more than 10,000 calls and continues after it', () => {
    const list: CallRecord[] = [rec('a0', T0), rec('a1', T0 + 1000)]
    for (let i = 0; i < 12_000; i++) list.push(rec(`x${String(i).padStart(5, '0')}`, T0 + 5000))
    for (let i = 0; i < 50; i++) list.push(rec(`z${i}`, T0 + 6000 + i * 1000))
    const { stored, state } = syncAll(() => list, T0 + 3_600_000, 500, { order })
    expect(state.dense.map((d) => d.at)).toEqual([T0 + 5000])
    expect(new Set(stored).size).toBe(stored.length)
    // Everything outside the dense second, and as much of it as one window reaches.
    expect(stored.filter((id) => !id.startsWith('x')).length).toBe(52)
    expect(stored.filter((id) => id.startsWith('x')).length).toBe(10_000)
    // The reachable ones are the first 10,000 in the pass's order of ties.
    expect(stored).toContain(order === 'oldest' ? 'x00000' : 'x11999')
  })

  it('re-reads a window when calls appear at the boundary second between pages', () => {
    const list: CallRecord[] = []
    for (let i = 0; i < 12_000; i++) list.push(rec(`m${String(i).padStart(5, '0')}`, T0 + Math.floor(i / 100) * 1000))
    let added = false
    const { stored } = syncAll(() => list, T0 + 3_600_000, 500, {
      order,
      between: (page) => {
        // Page 20 fills the first window; a call sorting first in its last second appears.
        if (page === 20 && !added) {
          added = true
          if (order === 'oldest') list.push(rec('m00000-late', T0 + 99 * 1000))
          else list.push(rec('m99999-late', T0 + 20 * 1000))
        }
      }
    })
    expect(new Set(stored)).toEqual(new Set(list.map((r) => r.callId)))
    expect(stored.length).toBe(list.length)
  })
})

describe('the 10,000 window pager', () => {
  it('does not take a page shortened inside the window for the end when the envelope says more', () => {
    let state = initialPager(T0)
    const slice = nextSlice(state, 100)
    const out = applyPage(state, slice, { records: [rec('a', T0)], returned: 1, totalCount: 50 }, T0 + 60_000)
    expect(out.next.done).toBe(false)
    expect(out.next.skip).toBe(1)
    state = out.next
    const end = applyPage(state, nextSlice(state, 100), { records: [], returned: 0, totalCount: 50 }, T0 + 60_000)
    expect(end.next.done).toBe(true)
  })

  it('never asks for a page that passes the window limit', () => {
    const s = { ...initialPager(T0), skip: 9_950 }
    expect(nextSlice(s, 500)).toEqual({ from: T0, skip: 9_950, take: 50 })
    const newest = { ...initialPager(T0, { rangeTo: T0 + 60_500 }), skip: 9_950 }
    // Newest first a window ends at a whole second: the end is rounded up, as the service reads it.
    expect(nextSlice(newest, 500)).toEqual({ from: T0, to: T0 + 61_000, skip: 9_950, take: 50 })
  })
})
