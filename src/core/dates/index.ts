import { DateTime, IANAZone } from 'luxon'

/**
 * Date conventions of the service client.
 *
 * Out: every sent date is wall-clock time in the account's IANA zone, `YYYY-MM-DDTHH:MM:SS`,
 * because the service reads zone-less strings in the user's configured zone.
 * In: callDate may carry an offset, a Z, or nothing; with nothing it is read in that zone.
 */

const SENT_FORMAT = "yyyy-MM-dd'T'HH:mm:ss"
const MINUTE = 60_000
const DAY = 86_400_000

function zoneOf(name: string): IANAZone {
  const zone = IANAZone.create(name)
  if (!zone.isValid) throw new RangeError(`Not a known IANA time zone: ${name}`)
  return zone
}

/** The instant as local wall-clock time in `zone`, seconds precision (truncated). */
export function formatLocal(epochMs: number, zone: string): string {
  return DateTime.fromMillis(epochMs, { zone: zoneOf(zone) }).toFormat(SENT_FORMAT)
}

interface LocalFields {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  millisecond: number
}

/** The fields read as if they were UTC: the starting point for finding real instants. */
function naiveUtc(f: LocalFields): number {
  return Date.UTC(f.year, f.month - 1, f.day, f.hour, f.minute, f.second, f.millisecond)
}

/**
 * Every instant whose wall-clock time in `zone` is the given one: one normally, two in a
 * DST overlap (fall back), none in a DST gap (spring forward). Sorted ascending.
 */
export function instantsOfLocal(f: LocalFields, zone: string): number[] {
  const z = zoneOf(zone)
  const t0 = naiveUtc(f)
  const offsets = new Set([z.offset(t0 - DAY), z.offset(t0), z.offset(t0 + DAY), z.offset(t0 - DAY / 2), z.offset(t0 + DAY / 2)])
  const found = new Set<number>()
  for (const off of offsets) {
    const inst = t0 - off * MINUTE
    if (z.offset(inst) === off) found.add(inst)
  }
  return [...found].sort((a, b) => a - b)
}

function fieldsOf(epochMs: number, zone: string): LocalFields {
  const d = DateTime.fromMillis(epochMs, { zone: zoneOf(zone) })
  return { year: d.year, month: d.month, day: d.day, hour: d.hour, minute: d.minute, second: d.second, millisecond: 0 }
}

export interface SentRange {
  startTime: string
  endTime: string
  /** The instants the sent strings stand for at their widest reading. */
  coversFrom: number
  coversTo: number
  /** True when a DST overlap made the sent range wider than [from, to). */
  widened: boolean
}

/**
 * The local strings to send for the instant range [from, to).
 *
 * The service turns each string back into an instant in the zone. When a string falls in a
 * DST overlap it could pick either reading; the start is moved earlier until even its latest
 * reading is at or before `from`, and the end later until even its earliest reading is at or
 * after `to`. So no instant of [from, to) is ever missed; a few extra calls at the edges may
 * come back, which the caller's upsert absorbs. Sub-second parts round outwards.
 */
export function sentRange(from: number, to: number, zone: string): SentRange {
  if (!(to >= from)) throw new RangeError('The end of the range is before its start')
  let start = Math.floor(from / 1000) * 1000
  let widened = false
  for (let i = 0; i < 4; i++) {
    const readings = instantsOfLocal(fieldsOf(start, zone), zone)
    const latest = readings[readings.length - 1] ?? start
    if (latest <= from) break
    // Step back by the overlap so the string lands before the repeated hour.
    start -= latest - start || 1000
    widened = true
  }
  let end = Math.ceil(to / 1000) * 1000
  for (let i = 0; i < 4; i++) {
    const readings = instantsOfLocal(fieldsOf(end, zone), zone)
    const earliest = readings[0] ?? end
    if (earliest >= to) break
    end += end - earliest || 1000
    widened = true
  }
  return { startTime: formatLocal(start, zone), endTime: formatLocal(end, zone), coversFrom: start, coversTo: end, widened }
}

export type ParsedDate = { ok: true; epochMs: number } | { ok: false; reason: string }

const ISO_LIKE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i

/**
 * Reads a callDate as the service sent it. With an offset or Z the instant is exact. Without
 * one it is wall-clock time in `zone`: in a DST overlap the earlier reading is taken (the
 * first time the clock showed it); in a DST gap, where that time never showed, the offset in
 * force just before the gap is used, which lands the instant just after the jump.
 */
export function parseCallDate(raw: string, zone: string): ParsedDate {
  const m = ISO_LIKE.exec(raw.trim())
  if (!m) return { ok: false, reason: 'callDate is not an ISO 8601 date-time' }
  const [, y, mo, d, h, mi, s, frac, offset] = m
  const fields: LocalFields = {
    year: Number(y),
    month: Number(mo),
    day: Number(d),
    hour: Number(h),
    minute: Number(mi),
    second: Number(s ?? 0),
    millisecond: frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0
  }
  const probe = DateTime.fromObject(fields, { zone: 'utc' })
  if (!probe.isValid || fields.hour > 23) return { ok: false, reason: 'callDate is not a valid date-time' }
  let epochMs: number
  if (offset) {
    epochMs = naiveUtc(fields) - offsetMinutes(offset) * MINUTE
  } else {
    const readings = instantsOfLocal(fields, zone)
    if (readings.length > 0) epochMs = readings[0]!
    else {
      const before = zoneOf(zone).offset(naiveUtc(fields) - DAY / 2)
      epochMs = naiveUtc(fields) - before * MINUTE
    }
  }
  if (!Number.isFinite(epochMs) || epochMs < 0 || epochMs > 8_640_000_000_000) {
    return { ok: false, reason: 'callDate is outside the supported range' }
  }
  return { ok: true, epochMs }
}

function offsetMinutes(offset: string): number {
  if (offset.toUpperCase() === 'Z') return 0
  const sign = offset.startsWith('-') ? -1 : 1
  const digits = offset.slice(1).replace(':', '')
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || 0))
}
