/**
 * Local times in a user's IANA zone. Requests carry startTime/endTime as local wall-clock
 * times; responses write callDate in the user's zone. Offsets are cached per quarter hour
 * (every real zone changes offset on a quarter-hour boundary), so formatting a page of 500
 * dates costs no time-zone database look-ups after the first few.
 */
import { DateTime, IANAZone } from 'luxon'

export type DateFormat = 'offset' | 'utc' | 'naive'

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,7})?(Z|[+-]\d{2}:?\d{2})?$/

export function isValidZone(zone: string): boolean {
  return IANAZone.isValidZone(zone)
}

/**
 * Reads `YYYY-MM-DDTHH:MM:SS` as a local time in `zone` and returns epoch seconds (whole
 * seconds: fractions are cut, because calls are stored at second precision). A trailing `Z`
 * or offset is honoured as an absolute instant. Returns null for anything malformed.
 */
export function parseLocal(text: string, zone: string): number | null {
  const m = LOCAL.exec(text)
  if (!m) return null
  const dt = m[8] ? DateTime.fromISO(text, { setZone: true }) : DateTime.fromISO(text, { zone })
  if (!dt.isValid) return null
  // Luxon rolls impossible dates (Feb 30) into invalid, but silently shifts times in a DST gap
  // forward; both are fine for a range bound.
  return Math.floor(dt.toMillis() / 1000)
}

const QUARTER = 900

export class ZoneFormatter {
  private readonly offsets = new Map<number, number>()
  constructor(
    readonly zone: string,
    readonly style: DateFormat
  ) {}

  /** Offset of the zone, in minutes, at an instant. */
  offsetMinutes(epochSeconds: number): number {
    const bucket = Math.floor(epochSeconds / QUARTER)
    let off = this.offsets.get(bucket)
    if (off === undefined) {
      off = DateTime.fromMillis(bucket * QUARTER * 1000, { zone: this.zone }).offset
      if (this.offsets.size > 100_000) this.offsets.clear()
      this.offsets.set(bucket, off)
    }
    return off
  }

  format(epochSeconds: number): string {
    if (this.style === 'utc') return `${wall(epochSeconds)}Z`
    const off = this.offsetMinutes(epochSeconds)
    const local = wall(epochSeconds + off * 60)
    if (this.style === 'naive') return local
    const sign = off < 0 ? '-' : '+'
    const a = Math.abs(off)
    return `${local}${sign}${pad2(Math.floor(a / 60))}:${pad2(a % 60)}`
  }
}

function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n)
}

const dayCache = new Map<number, string>()

/** `YYYY-MM-DDTHH:MM:SS` of an epoch-second value read as UTC; the date part is cached per day. */
function wall(epochSeconds: number): string {
  const day = Math.floor(epochSeconds / 86_400)
  let date = dayCache.get(day)
  if (date === undefined) {
    date = new Date(day * 86_400_000).toISOString().slice(0, 10)
    if (dayCache.size > 50_000) dayCache.clear()
    dayCache.set(day, date)
  }
  const t = epochSeconds - day * 86_400
  const h = Math.floor(t / 3600)
  const m = Math.floor((t % 3600) / 60)
  return `${date}T${pad2(h)}:${pad2(m)}:${pad2(t % 60)}`
}
