import { DateTime } from 'luxon'

export interface CalendarDay {
  year: number
  month: number
  day: number
}

export interface InstantRange {
  /** Inclusive, epoch ms. */
  from: number
  /** Exclusive, epoch ms. */
  to: number
}

/**
 * The last `days` calendar days in `zone`, today included: from the start of the first day
 * to now. Presets are calendar days so "last 7 days" means the same thing all day long.
 */
export function lastDays(days: number, zone: string, nowMs: number): InstantRange {
  const now = DateTime.fromMillis(nowMs, { zone })
  const from = now.startOf('day').minus({ days: days - 1 })
  return { from: from.toMillis(), to: nowMs }
}

/**
 * A picked span of calendar days, read in the display zone: from the start of the first day
 * to the start of the day after the last (the query's `to` is exclusive).
 */
export function daysToRange(first: CalendarDay, last: CalendarDay, zone: string): InstantRange {
  const from = DateTime.fromObject(first, { zone }).startOf('day')
  const to = DateTime.fromObject(last, { zone }).startOf('day').plus({ days: 1 })
  return { from: from.toMillis(), to: to.toMillis() }
}

/** The calendar day an instant falls on in `zone`. */
export function dayOf(ms: number, zone: string): CalendarDay {
  const dt = DateTime.fromMillis(ms, { zone })
  return { year: dt.year, month: dt.month, day: dt.day }
}

/** The inverse of daysToRange, for showing a stored range in a day picker. */
export function rangeToDays(range: InstantRange, zone: string): { first: CalendarDay; last: CalendarDay } {
  return { first: dayOf(range.from, zone), last: dayOf(Math.max(range.from, range.to - 1), zone) }
}

/**
 * A "last N days" preset as the date fields apply it: whole calendar days in `zone` up to
 * the end of today (the search bar), or up to now (sync, which cannot ask for the future).
 */
export function presetRange(days: number, zone: string, nowMs: number, to: 'endOfToday' | 'now' = 'endOfToday'): InstantRange {
  const range = lastDays(days, zone, nowMs)
  if (to === 'now') return range
  const span = rangeToDays(range, zone)
  return daysToRange(span.first, span.last, zone)
}
