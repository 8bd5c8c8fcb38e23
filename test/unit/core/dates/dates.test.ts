import { describe, it, expect } from 'vitest'
import { formatLocal, instantsOfLocal, parseCallDate, sentRange } from '../../../../src/core/dates'

const utc = (iso: string): number => Date.parse(iso)

describe('sent dates', () => {
  it('writes local wall-clock time in the account zone, seconds precision', () => {
    expect(formatLocal(utc('2026-03-10T09:15:42.900Z'), 'Europe/Istanbul')).toBe('2026-03-10T12:15:42')
    expect(formatLocal(utc('2026-07-01T00:00:00Z'), 'America/New_York')).toBe('2026-06-30T20:00:00')
  })

  it('sends [from, to) as-is away from DST changes, rounding sub-seconds outwards', () => {
    const r = sentRange(utc('2026-03-10T09:00:00.250Z'), utc('2026-03-10T10:00:00.250Z'), 'Europe/Istanbul')
    expect(r).toMatchObject({ startTime: '2026-03-10T12:00:00', endTime: '2026-03-10T13:00:01', widened: false })
  })

  it('widens a start inside a repeated hour so its later reading cannot skip calls', () => {
    // Berlin 2025-10-26: 02:00-03:00 local happens twice (CEST then CET). 00:30Z is 02:30 CEST.
    const from = utc('2025-10-26T00:30:00Z')
    const r = sentRange(from, utc('2025-10-26T05:00:00Z'), 'Europe/Berlin')
    expect(r.widened).toBe(true)
    expect(r.startTime).toBe('2025-10-26T01:30:00')
    expect(r.endTime).toBe('2025-10-26T06:00:00')
  })

  it('widens an end inside a repeated hour so its earlier reading cannot cut calls off', () => {
    // 01:30Z is 02:30 CET, the second 02:30; its first reading (00:30Z) is before `to`.
    const r = sentRange(utc('2025-10-25T20:00:00Z'), utc('2025-10-26T01:30:00Z'), 'Europe/Berlin')
    expect(r.widened).toBe(true)
    expect(r.endTime).toBe('2025-10-26T03:30:00')
  })

  it('never lets any reading of the sent strings fall inside [from, to) (random ranges in DST zones)', () => {
    let seed = 7
    const next = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (const zone of ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Europe/Istanbul']) {
      for (let i = 0; i < 300; i++) {
        // Around the 2025 autumn and spring changes of both hemispheres.
        const base = utc(next() < 0.5 ? '2025-10-25T12:00:00Z' : '2025-04-05T12:00:00Z') + Math.floor(next() * 4 * 86_400_000)
        const from = base
        const to = base + Math.floor(next() * 3 * 3_600_000)
        const r = sentRange(from, to, zone)
        const read = (s: string): number[] => {
          const [d, t] = s.split('T') as [string, string]
          const [y, mo, da] = d.split('-').map(Number) as [number, number, number]
          const [h, mi, se] = t.split(':').map(Number) as [number, number, number]
          return instantsOfLocal({ year: y, month: mo, day: da, hour: h, minute: mi, second: se, millisecond: 0 }, zone)
        }
        for (const s of read(r.startTime)) expect(s).toBeLessThanOrEqual(from)
        for (const e of read(r.endTime)) expect(e).toBeGreaterThanOrEqual(to)
      }
    }
  })

  it('rejects a range that ends before it starts', () => {
    expect(() => sentRange(10_000, 5_000, 'UTC')).toThrow(RangeError)
  })
})

describe('callDate in', () => {
  it('reads offsets, Z and fractions exactly', () => {
    expect(parseCallDate('2026-03-10T12:15:42+03:00', 'UTC')).toEqual({ ok: true, epochMs: utc('2026-03-10T09:15:42Z') })
    expect(parseCallDate('2026-03-10T09:15:42Z', 'Europe/Istanbul')).toEqual({ ok: true, epochMs: utc('2026-03-10T09:15:42Z') })
    expect(parseCallDate('2026-03-10T09:15:42.123-0500', 'UTC')).toEqual({ ok: true, epochMs: utc('2026-03-10T14:15:42.123Z') })
    expect(parseCallDate('2026-03-10 09:15:42z', 'Asia/Tokyo')).toEqual({ ok: true, epochMs: utc('2026-03-10T09:15:42Z') })
  })

  it('reads a zone-less date in the account zone', () => {
    expect(parseCallDate('2026-03-10T12:15:42', 'Europe/Istanbul')).toEqual({ ok: true, epochMs: utc('2026-03-10T09:15:42Z') })
    expect(parseCallDate('2026-07-01T08:00', 'America/New_York')).toEqual({ ok: true, epochMs: utc('2026-07-01T12:00:00Z') })
  })

  it('takes the earlier reading in an overlap and lands after the jump in a gap', () => {
    expect(parseCallDate('2025-10-26T02:30:00', 'Europe/Berlin')).toEqual({ ok: true, epochMs: utc('2025-10-26T00:30:00Z') })
    // 02:30 never happened on 2025-03-30 in Berlin; read with +01:00 it is 03:30 CEST.
    expect(parseCallDate('2025-03-30T02:30:00', 'Europe/Berlin')).toEqual({ ok: true, epochMs: utc('2025-03-30T01:30:00Z') })
  })

  it('reports strings that are not dates', () => {
    for (const bad of [
      '',
      'yesterday',
      '2026-13-01T00:00:00',
      '2026-02-30T10:00:00',
      '2026-03-10T25:00:00',
      '10/03/2026 10:00',
      '1969-12-31T23:59:59Z'
    ]) {
      expect(parseCallDate(bad, 'UTC').ok).toBe(false)
    }
  })
})
