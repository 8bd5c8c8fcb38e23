import { DateTime } from 'luxon'
import { describe, expect, it } from 'vitest'
import { ZoneClock } from '../../../../src/core/export/zoned-time'
import { CallsightError } from '../../../../src/core/errors'

/** Luxon writes UTC as "Z"; the export always writes a numeric offset, "+00:00". */
const luxonIso = (at: number, zone: string): string =>
  DateTime.fromMillis(at, { zone }).toISO({ suppressMilliseconds: true })!.replace(/Z$/, '+00:00')

/** Every minute (plus odd milliseconds) for two hours around an instant. */
function around(center: number): number[] {
  return Array.from({ length: 240 }, (_, i) => center - 3_600_000 + i * 30_000 + (i % 3 === 0 ? 123 : 0))
}

describe('ZoneClock', () => {
  const cases: Array<[string, number]> = [
    ['Europe/Istanbul', Date.UTC(2024, 2, 31, 1)],
    ['Europe/Berlin', Date.UTC(2024, 2, 31, 1)], // spring forward
    ['Europe/Berlin', Date.UTC(2024, 9, 27, 1)], // fall back
    ['America/New_York', Date.UTC(2024, 10, 3, 6)],
    ['Australia/Lord_Howe', Date.UTC(2024, 3, 6, 15)], // a 30-minute DST step
    ['Asia/Kathmandu', Date.UTC(2024, 0, 1)],
    ['America/St_Johns', Date.UTC(2024, 2, 10, 5, 30)],
    ['UTC', Date.UTC(2024, 0, 1)]
  ]

  it.each(cases)('formats %s around %d exactly as luxon does', (zone, center) => {
    const clock = new ZoneClock(zone)
    for (const at of around(center)) expect(clock.iso(at)).toBe(luxonIso(at, zone))
  })

  it('shows wall-clock time in the UTC fields of the shifted date', () => {
    const clock = new ZoneClock('Europe/Berlin')
    // 00:59:59 UTC is 01:59:59 CET; 01:00 UTC is 03:00 CEST.
    expect(clock.wallClock(Date.UTC(2024, 2, 31, 0, 59, 59)).toISOString()).toBe('2024-03-31T01:59:59.000Z')
    expect(clock.wallClock(Date.UTC(2024, 2, 31, 1)).toISOString()).toBe('2024-03-31T03:00:00.000Z')
  })

  it('refuses an unknown zone', () => {
    expect(() => new ZoneClock('Mars/Olympus')).toThrow(CallsightError)
  })
})
