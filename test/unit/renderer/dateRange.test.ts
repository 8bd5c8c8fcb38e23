import { describe, expect, it } from 'vitest'
import { DateTime } from 'luxon'
import { dayOf, daysToRange, lastDays, rangeToDays } from '../../../src/renderer/src/lib/dateRange'

describe('date range presets', () => {
  it('last N days start at midnight of the first day in the display zone and end now', () => {
    // 2026-11-22 01:30 in Istanbul is still 2026-11-21 in UTC: the zone decides the days.
    const now = DateTime.fromISO('2026-11-22T01:30:00', { zone: 'Europe/Istanbul' }).toMillis()
    const r = lastDays(7, 'Europe/Istanbul', now)
    expect(DateTime.fromMillis(r.from, { zone: 'Europe/Istanbul' }).toISO()).toBe('2026-11-16T00:00:00.000+03:00')
    expect(r.to).toBe(now)
    const utc = lastDays(7, 'UTC', now)
    expect(DateTime.fromMillis(utc.from, { zone: 'UTC' }).toISODate()).toBe('2026-11-15')
  })

  it('a single picked day covers that whole day, with an exclusive end', () => {
    const r = daysToRange({ year: 2026, month: 3, day: 10 }, { year: 2026, month: 3, day: 10 }, 'Europe/Istanbul')
    expect(r.to - r.from).toBe(24 * 3_600_000)
    expect(DateTime.fromMillis(r.from, { zone: 'UTC' }).toISO()).toBe('2026-03-09T21:00:00.000Z')
  })

  it('a day with a DST change is 23 hours long, not a fixed 24', () => {
    const spring = daysToRange({ year: 2026, month: 3, day: 29 }, { year: 2026, month: 3, day: 29 }, 'Europe/Berlin')
    expect(spring.to - spring.from).toBe(23 * 3_600_000)
  })

  it('reads a stored range back as the same calendar days', () => {
    const first = { year: 2026, month: 10, day: 1 }
    const last = { year: 2026, month: 10, day: 31 }
    const r = daysToRange(first, last, 'America/New_York')
    expect(rangeToDays(r, 'America/New_York')).toEqual({ first, last })
    expect(dayOf(r.from, 'America/New_York')).toEqual(first)
  })
})
