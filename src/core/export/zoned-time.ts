import { IANAZone } from 'luxon'
import { CallsightError } from '../errors'

const BUCKET_MS = 60 * 60_000
const pad = (n: number, width = 2): string => String(n).padStart(width, '0')

/**
 * Zone offsets for many instants, fast. Asking Intl for every row costs more than the rest
 * of a CSV row; offsets only change at transitions, and no zone has two transitions within
 * an hour, so an offset that is the same at the starts of two neighbouring hours holds for
 * the whole first hour. Otherwise (an hour with a transition) the instant is asked exactly.
 */
export class ZoneClock {
  private readonly zone: IANAZone
  /** Offset at the start of each hour bucket asked about. */
  private readonly starts = new Map<number, number>()

  constructor(readonly name: string) {
    if (!IANAZone.isValidZone(name)) throw new CallsightError('InvalidInput', `"${name}" is not a known time zone.`)
    this.zone = IANAZone.create(name)
  }

  /** Minutes east of UTC at the instant, rounded to whole minutes (ISO offsets have no seconds). */
  offsetMinutes(at: number): number {
    const bucket = Math.floor(at / BUCKET_MS)
    const start = this.offsetAtStart(bucket)
    // A transition exactly at the next start makes the ends differ too: asked exactly, still right.
    return start === this.offsetAtStart(bucket + 1) ? start : Math.round(this.zone.offset(at))
  }

  private offsetAtStart(bucket: number): number {
    let known = this.starts.get(bucket)
    if (known === undefined) {
      known = Math.round(this.zone.offset(bucket * BUCKET_MS))
      if (this.starts.size > 100_000) this.starts.clear()
      this.starts.set(bucket, known)
    }
    return known
  }

  /** ISO 8601 with the zone's offset, e.g. 2024-03-31T03:30:00+03:00; milliseconds only when non-zero. */
  iso(at: number): string {
    const offset = this.offsetMinutes(at)
    const d = new Date(at + offset * 60_000)
    const ms = d.getUTCMilliseconds()
    const sign = offset < 0 ? '-' : '+'
    const abs = Math.abs(offset)
    return (
      `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}` +
      `T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` +
      (ms === 0 ? '' : `.${pad(ms, 3)}`) +
      `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`
    )
  }

  /**
   * A Date whose UTC fields are the wall-clock time in the zone. Spreadsheets have no zones:
   * exceljs writes a Date as its UTC serial, so this shift makes the cell show local time.
   */
  wallClock(at: number): Date {
    return new Date(at + this.offsetMinutes(at) * 60_000)
  }
}
