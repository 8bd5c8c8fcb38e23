import { DateTime } from 'luxon'
import { describe, expect, it } from 'vitest'
import {
  cacheFreshness,
  formatShortDateTime,
  formatValue,
  formatAge,
  formatBytes,
  formatCount,
  formatDay,
  formatDuration,
  formatFullDate,
  formatTableDate,
  formatZoneLabel,
  intlLocale,
  resolveZone
} from '../../../src/renderer/src/lib/format'

// 2026-07-01T09:30:15Z: summer, Istanbul is UTC+3 all year, Berlin is UTC+2 in summer.
const SUMMER = Date.UTC(2026, 6, 1, 9, 30, 15)
const WINTER = Date.UTC(2026, 0, 15, 23, 5, 0)

describe('display zone', () => {
  it("follows the system zone for 'system' and keeps an explicit choice", () => {
    expect(resolveZone('system', 'Europe/Istanbul')).toBe('Europe/Istanbul')
    expect(resolveZone('America/New_York', 'Europe/Istanbul')).toBe('America/New_York')
  })

  it('formats the same instant in the chosen zone', () => {
    expect(formatTableDate(SUMMER, 'Europe/Istanbul')).toBe('2026-07-01 12:30:15')
    expect(formatTableDate(SUMMER, 'UTC')).toBe('2026-07-01 09:30:15')
    expect(formatTableDate(WINTER, 'Europe/Istanbul')).toBe('2026-01-16 02:05:00')
    expect(formatDay(WINTER, 'Europe/Istanbul')).toBe('2026-01-16')
    expect(formatDay(WINTER, 'UTC')).toBe('2026-01-15')
  })

  it('writes table dates as luxon does, across midnight and daylight-saving changes', () => {
    // Berlin springs forward on 2026-03-29 01:00 UTC and falls back on 2026-10-25 01:00 UTC.
    const instants = [
      Date.UTC(2026, 2, 29, 0, 59, 59),
      Date.UTC(2026, 2, 29, 1),
      Date.UTC(2026, 9, 25, 0, 30),
      Date.UTC(2026, 9, 25, 1, 30)
    ]
    instants.push(Date.UTC(2026, 11, 31, 23, 59, 59), Date.UTC(2027, 0, 1, 0, 0, 0), Date.UTC(1999, 1, 28, 21, 0, 0))
    for (const zone of ['Europe/Berlin', 'Europe/Istanbul', 'America/New_York', 'UTC', 'Asia/Kolkata'])
      for (const ms of instants) expect(formatTableDate(ms, zone)).toBe(DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM-dd HH:mm:ss'))
    // A zone Intl does not know reads as luxon says, instead of throwing inside a render.
    expect(formatTableDate(SUMMER, 'Not/AZone')).toBe('Invalid DateTime')
  })

  it('names the zone with the offset that applies at that instant', () => {
    expect(formatZoneLabel('Europe/Berlin', SUMMER)).toBe('Europe/Berlin (UTC+02:00)')
    expect(formatZoneLabel('Europe/Berlin', WINTER)).toBe('Europe/Berlin (UTC+01:00)')
    expect(formatZoneLabel('Europe/Istanbul', WINTER)).toBe('Europe/Istanbul (UTC+03:00)')
  })

  it('writes a full date with the zone named, in the UI language', () => {
    const tr = formatFullDate(SUMMER, 'Europe/Istanbul', 'tr-TR')
    expect(tr).toContain('Temmuz')
    expect(tr).toContain('12:30:15')
    expect(tr).toContain('Europe/Istanbul (UTC+03:00)')
    expect(formatFullDate(SUMMER, 'UTC', 'en-GB')).toContain('July')
  })
})

describe('ages, counts, sizes and durations', () => {
  const now = Date.UTC(2026, 10, 22, 12, 0, 0)

  it('says how long ago in the largest whole unit', () => {
    expect(formatAge(now - 5 * 60_000, now, 'en-GB')).toBe('5 minutes ago')
    expect(formatAge(now - 3 * 3_600_000, now, 'en-GB')).toBe('3 hours ago')
    expect(formatAge(now - 86_400_000, now, 'en-GB')).toBe('yesterday')
    expect(formatAge(now - 2 * 7 * 86_400_000, now, 'en-GB')).toBe('2 weeks ago')
    expect(formatAge(now - 3 * 3_600_000, now, 'tr-TR')).toBe('3 saat önce')
    expect(formatAge(now, now, 'en-GB')).toBe('now')
    // Never in the future: a clock ahead of ours, or the minute tick behind a sync that just ended.
    expect(formatAge(now + 20_000, now, 'en-GB', 'just now')).toBe('just now')
    expect(formatAge(now + 13_000, now, 'tr-TR', 'az önce')).toBe('az önce')
    expect(formatAge(now + 3 * 3_600_000, now, 'en-GB')).toBe('now')
    expect(formatAge(now - 30_000, now, 'en-GB', 'just now')).toBe('just now')
    expect(formatAge(now - 50_000, now, 'en-GB', 'just now')).toBe('50 seconds ago')
  })

  it('groups digits the way each language does', () => {
    expect(formatCount(1_000_000, 'en-GB')).toBe('1,000,000')
    expect(formatCount(1_000_000, 'tr-TR')).toBe('1.000.000')
  })

  it('picks a byte unit', () => {
    expect(formatBytes(512, 'en-GB')).toBe('512 B')
    expect(formatBytes(1536, 'en-GB')).toBe('1.5 KB')
    expect(formatBytes(734_003_200, 'en-GB')).toBe('700 MB')
    expect(formatBytes(5 * 1024 ** 3, 'tr-TR')).toBe('5,0 GB')
  })

  it('keeps durations short', () => {
    expect(formatDuration(12)).toBe('12s')
    expect(formatDuration(245)).toBe('4m 05s')
    expect(formatDuration(3720)).toBe('1h 02m')
    expect(formatDuration(-4)).toBe('0s')
  })

  it('maps UI languages to Intl locales', () => {
    expect(intlLocale('tr')).toBe('tr-TR')
    expect(intlLocale('en')).toBe('en-GB')
  })
})

describe("service values in the reader's terms", () => {
  const tr = { yes: 'Evet', no: 'Hayır' }
  const en = { yes: 'Yes', no: 'No' }
  it("writes decimals with the Turkish decimal comma and keeps the service's digits", () => {
    expect(formatValue('0.21', 'tr-TR', tr)).toBe('0,21')
    expect(formatValue('0.10', 'tr-TR', tr)).toBe('0,10')
    expect(formatValue('-3.5', 'tr-TR', tr)).toBe('-3,5')
    expect(formatValue('0.21', 'en-GB', en)).toBe('0.21')
    expect(formatValue('87', 'tr-TR', tr)).toBe('87')
  })

  it("says true/false as the language's yes/no, and leaves other text alone", () => {
    expect(formatValue('true', 'tr-TR', tr)).toBe('Evet')
    expect(formatValue('FALSE', 'tr-TR', tr)).toBe('Hayır')
    expect(formatValue('true', 'en-GB', en)).toBe('Yes')
    for (const raw of ['Negative', '007', '1e5', '3,5', '+5', '12345678901234567890', 'İptal'])
      expect(formatValue(raw, 'tr-TR', tr)).toBe(raw)
  })
})

describe('the status bar on a cache no sync finished', () => {
  it('says when the first sync stopped, rather than "never synced"', () => {
    expect(cacheFreshness({ lastSyncAt: null, stoppedAt: 1_700_000_000_000, calls: 7300 })).toEqual({
      kind: 'firstStopped',
      at: 1_700_000_000_000
    })
    expect(cacheFreshness({ lastSyncAt: 5, stoppedAt: null, calls: 7300 })).toEqual({ kind: 'synced', at: 5 })
    expect(cacheFreshness({ lastSyncAt: null, calls: 7300 })).toEqual({ kind: 'notFinished' })
    expect(cacheFreshness({ lastSyncAt: null, calls: 0 })).toEqual({ kind: 'never' })
    expect(cacheFreshness(null)).toEqual({ kind: 'never' })
  })

  it('writes the stop time in the zone and the language', () => {
    const at = Date.UTC(2026, 10, 29, 8, 47)
    expect(formatShortDateTime(at, 'Europe/Istanbul', 'en-GB')).toContain('11:47')
    expect(formatShortDateTime(at, 'Europe/Istanbul', 'tr-TR')).toMatch(/Kas.*11:47/)
  })
})
