import { DateTime } from 'luxon'
import { describe, expect, it } from 'vitest'
import {
  dayStarts,
  foldIntoDays,
  foldQuarters,
  niceStep,
  numericBuckets,
  splitHours,
  topValues,
  typeFacet
} from '../../../../src/core/search/facets/buckets'
import { prng } from '../../../support/prng'

const HOUR = 3_600_000
const DAY = 24 * HOUR

describe('dayStarts', () => {
  /** luxon's startOf('day') for every day: the slow, obvious answer. */
  function slow(from: number, to: number, zone: string): Array<{ start: number; day: string }> {
    const out: Array<{ start: number; day: string }> = []
    let d = DateTime.fromMillis(from, { zone }).startOf('day')
    while (d.toMillis() <= to) {
      out.push({ start: d.toMillis(), day: d.toISODate()! })
      d = d.plus({ days: 1 }).startOf('day')
    }
    return out
  }

  it.each(['UTC', 'Europe/Istanbul', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'America/Santiago'])(
    'equals luxon day by day over a year in %s (DST days of 23 and 25 hours included)',
    (zone) => {
      const from = Date.UTC(2025, 0, 1, 7, 30)
      const to = Date.UTC(2025, 11, 31, 22)
      expect(dayStarts(from, to, zone)).toEqual(slow(from, to, zone))
    }
  )

  it('has 23- and 25-hour days where New York changes its clocks', () => {
    const days = dayStarts(Date.UTC(2025, 2, 8, 12), Date.UTC(2025, 2, 10, 12), 'America/New_York')
    expect(days.map((d) => d.day)).toEqual(['2025-03-08', '2025-03-09', '2025-03-10'])
    expect(days[2]!.start - days[1]!.start).toBe(23 * HOUR)
    const fall = dayStarts(Date.UTC(2025, 10, 2, 12), Date.UTC(2025, 10, 3, 12), 'America/New_York')
    expect(fall[1]!.start - fall[0]!.start).toBe(25 * HOUR)
  })

  it('starts before 1970 too', () => {
    expect(dayStarts(-DAY - 1, -1, 'UTC').map((d) => d.day)).toEqual(['1969-12-30', '1969-12-31'])
  })
})

describe('splitHours', () => {
  it('splits a range into whole UTC hours and the partial hours at its ends', () => {
    expect(splitHours(null, null)).toEqual({ hourFrom: Number.MIN_SAFE_INTEGER, hourTo: Number.MAX_SAFE_INTEGER, edges: [] })
    expect(splitHours(2 * HOUR, 5 * HOUR)).toEqual({ hourFrom: 2, hourTo: 5, edges: [] })
    expect(splitHours(2 * HOUR + 1, 5 * HOUR - 1)).toEqual({
      hourFrom: 3,
      hourTo: 4,
      edges: [
        [2 * HOUR + 1, 3 * HOUR],
        [4 * HOUR, 5 * HOUR - 1]
      ]
    })
    expect(splitHours(null, 5 * HOUR + 7)).toEqual({ hourFrom: Number.MIN_SAFE_INTEGER, hourTo: 5, edges: [[5 * HOUR, 5 * HOUR + 7]] })
    expect(splitHours(-HOUR - 5, null)).toEqual({ hourFrom: -1, hourTo: Number.MAX_SAFE_INTEGER, edges: [[-HOUR - 5, -HOUR]] })
  })

  it('keeps a range inside one hour as one exact edge, and an empty one as nothing', () => {
    expect(splitHours(HOUR + 10, HOUR + 20)).toEqual({ hourFrom: 0, hourTo: 0, edges: [[HOUR + 10, HOUR + 20]] })
    expect(splitHours(HOUR + 20, HOUR + 10)).toEqual({ hourFrom: 0, hourTo: 0, edges: [] })
  })

  it('covers every instant of a random range exactly once', () => {
    const r = prng(7)
    for (let i = 0; i < 200; i++) {
      const from = Math.floor((r() - 0.5) * 50 * HOUR)
      const to = from + Math.floor(r() * 5 * HOUR)
      const s = splitHours(from, to)
      let covered = Math.max(0, s.hourTo - s.hourFrom) * HOUR
      for (const [a, b] of s.edges) covered += b - a
      expect(covered, `${from}..${to}`).toBe(to - from)
    }
  })
})

describe('folding counts into days', () => {
  const days = [
    { start: 0, day: 'd0' },
    { start: DAY, day: 'd1' },
    { start: 2 * DAY, day: 'd2' }
  ]
  it('adds counts at instants to the day holding them, days without calls left out', () => {
    expect(
      foldIntoDays(days, [
        [0, 2],
        [DAY - 1, 3],
        [2 * DAY + 5, 1]
      ])
    ).toEqual([
      { day: 'd0', count: 5 },
      { day: 'd2', count: 1 }
    ])
  })
  it('adds quarter-hour counts the same way', () => {
    const perQuarter = new Uint32Array(3 * 96)
    perQuarter[0] = 1
    perQuarter[95] = 2
    perQuarter[96] = 4
    perQuarter[3 * 96 - 1] = 8
    expect(foldQuarters(days, 0, 15 * 60_000, perQuarter)).toEqual([
      { day: 'd0', count: 3 },
      { day: 'd1', count: 4 },
      { day: 'd2', count: 8 }
    ])
  })
})

describe('niceStep and numericBuckets', () => {
  it('rounds a step up to 1, 2 or 5 × 10ⁿ', () => {
    expect([0.07, 0.1, 0.11, 1.5, 2, 2.01, 3, 7, 10, 4500].map(niceStep)).toEqual([0.1, 0.1, 0.2, 2, 2, 5, 5, 10, 10, 5000])
    expect(niceStep(0)).toBe(1)
    expect(niceStep(Number.NaN)).toBe(1)
  })

  it('puts every value in exactly one bucket, about ten of them, sharing their bounds', () => {
    const r = prng(3)
    for (let t = 0; t < 50; t++) {
      const values = Array.from({ length: 1 + Math.floor(r() * 200) }, () => Math.round((r() - 0.3) * 10 ** (1 + Math.floor(r() * 4))) / 10)
      const b = numericBuckets(values, null)
      expect(b.reduce((a, x) => a + x.count, 0)).toBe(values.length)
      for (const x of b)
        expect(x.count).toBe(values.filter((v) => v >= x.min! && (v < x.max! || (x.closed === true && v === x.max))).length)
      expect(b.length).toBeLessThanOrEqual(11)
    }
  })

  it('weighs values by their item counts, and names ranges as min – max', () => {
    expect(numericBuckets([1, 2.5, 9], [3, 1, 2])).toEqual([
      { value: '1 – 2', min: 1, max: 2, count: 3 },
      { value: '2 – 3', min: 2, max: 3, count: 1 },
      { value: '8 – 9', min: 8, max: 9, count: 2, closed: true }
    ])
    expect(numericBuckets([5, 5], null)).toEqual([{ value: '5 – 6', min: 5, max: 6, count: 2, closed: true }])
    expect(numericBuckets([0.1, 0.2, 0.3], null).map((x) => x.value)).toEqual(['0.1 – 0.12', '0.2 – 0.22', '0.28 – 0.3'])
  })

  it('closes the last range on the largest value: scores 0–100 end with "90 – 100", never "100 – 110"', () => {
    const scores = [0, 12, 35, 50, 71, 88, 90, 99, 100, 100]
    const b = numericBuckets(scores, null)
    expect(b.at(-1)).toEqual({ value: '90 – 100', min: 90, max: 100, count: 4, closed: true })
    expect(b.some((x) => x.min === 100)).toBe(false)
    expect(numericBuckets([], null)).toEqual([])
  })
})

describe('top values and types', () => {
  it('keeps the 100 most frequent values, most first, ties by value', () => {
    const counts = new Map(Array.from({ length: 150 }, (_, i) => [`v${String(i).padStart(3, '0')}`, i % 7] as [string, number]))
    const top = topValues(counts)
    expect(top).toHaveLength(100)
    expect(top[0]).toEqual({ value: 'v006', min: null, max: null, count: 6 })
    expect(top[1]!.value).toBe('v013')
    for (let i = 1; i < top.length; i++) expect(top[i - 1]!.count >= top[i]!.count).toBe(true)
  })
  it('lists types with calls, most first, ties by name', () => {
    expect(
      typeFacet([
        ['Kargo', 2],
        ['Fatura', 2],
        ['İade', 0],
        ['Arıza', 5]
      ])
    ).toEqual([
      { value: 'Arıza', count: 5 },
      { value: 'Fatura', count: 2 },
      { value: 'Kargo', count: 2 }
    ])
  })
})
