import { DateTime } from 'luxon'

/** The zone dates are shown in: the user's choice, or the operating system's. */
export function resolveZone(displayZone: string, systemZone: string): string {
  return displayZone === 'system' ? systemZone : displayZone
}

/**
 * Intl formatters are costly to build (tenths of a millisecond each) and the results list
 * formats every visible row on each render, so each (locale, options) is built once.
 */
const numberFormats = new Map<string, Intl.NumberFormat>()
function numberFormat(locale: string, options?: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${locale}|${JSON.stringify(options ?? {})}`
  let f = numberFormats.get(key)
  if (!f) numberFormats.set(key, (f = new Intl.NumberFormat(locale, options)))
  return f
}

/** Per zone: the parts of a table date, or null for a zone Intl does not know (luxon then says so). */
const tableDateFormats = new Map<string, Intl.DateTimeFormat | null>()
function tableDateFormat(zone: string): Intl.DateTimeFormat | null {
  let f = tableDateFormats.get(zone)
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        year: 'numeric',
        month: '2-digit',
        day: '2-digit',
        hour: '2-digit',
        minute: '2-digit',
        second: '2-digit',
        hourCycle: 'h23'
      })
    } catch {
      f = null
    }
    tableDateFormats.set(zone, f)
  }
  return f
}

/** A compact, sortable timestamp for dense tables; the zone is named in the column header. */
export function formatTableDate(ms: number, zone: string): string {
  const f = tableDateFormat(zone)
  if (f === null || !Number.isFinite(ms)) return DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM-dd HH:mm:ss')
  const p: Record<string, string> = {}
  for (const part of f.formatToParts(ms)) p[part.type] = part.value
  return `${(p['year'] ?? '').padStart(4, '0')}-${p['month']}-${p['day']} ${p['hour']}:${p['minute']}:${p['second']}`
}

/** The time of day, "14:05", in the display zone: for "as of" and "next" in the status bar. */
export function formatClock(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toFormat('HH:mm')
}

/** "Europe/Istanbul (UTC+03:00)": the zone with its offset at that instant. */
export function formatZoneLabel(zone: string, atMs: number): string {
  const dt = DateTime.fromMillis(atMs, { zone })
  return `${zone} (UTC${dt.toFormat('ZZ')})`
}

/** A full date for reading, with the zone named so it is never ambiguous. */
export function formatFullDate(ms: number, zone: string, locale: string): string {
  const dt = DateTime.fromMillis(ms, { zone }).setLocale(locale)
  return `${dt.toFormat('d MMMM yyyy, cccc HH:mm:ss')} · ${formatZoneLabel(zone, ms)}`
}

export function formatDay(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM-dd')
}

const AGE_UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000]
]

/** Under this, an age reads "just now": the minute tick and clock skew live in it. */
const JUST_NOW_MS = 45_000

/**
 * How long ago, in the largest whole unit: "3 hours ago", "3 saat önce". Never in the future:
 * an instant after `nowMs` (the clock ticks once a minute; the service's clock may run ahead
 * of this computer's) reads as `justNow` ("just now", "az önce"), like the last 45 seconds.
 */
export function formatAge(thenMs: number, nowMs: number, locale: string, justNow?: string): string {
  const diff = thenMs - nowMs
  const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })
  if (diff > -JUST_NOW_MS) return justNow ?? rtf.format(0, 'second')
  for (const [unit, size] of AGE_UNITS) {
    if (Math.abs(diff) >= size) return rtf.format(Math.trunc(diff / size), unit)
  }
  return rtf.format(0, 'second')
}

export function formatCount(n: number, locale: string): string {
  return numberFormat(locale).format(n)
}

/** 0–100 as the locale writes a percentage: "86.7%" in English, "%86,7" in Turkish. */
export function formatPercent(value: number, locale: string): string {
  return numberFormat(locale, { style: 'percent', maximumFractionDigits: 1 }).format(value / 100)
}

/** A calendar day (YYYY-MM-DD) as a short label in the locale: "23 Nov", "23 Kas". */
export function formatShortDay(day: string, locale: string): string {
  const [y, m, d] = day.split('-').map(Number)
  if (!y || !m || !d) return day
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' }).format(new Date(Date.UTC(y, m - 1, d)))
}

const BYTE_UNITS = ['B', 'KB', 'MB', 'GB', 'TB']

export function formatBytes(bytes: number, locale: string): string {
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < BYTE_UNITS.length - 1) {
    value /= 1024
    unit++
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: digits, minimumFractionDigits: digits }).format(value)} ${BYTE_UNITS[unit]}`
}

/**
 * Seconds as "1h 02m", "4m 05s" or "12s" (Turkish "1 sa 02 dk"): short enough for a progress
 * line, with the units Intl writes for the locale.
 */
export function formatDuration(totalSeconds: number, locale = 'en-GB'): string {
  const s = Math.max(0, Math.round(totalSeconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = s % 60
  // Turkish narrow units are ambiguous ("5s" is five hours); the short ones are not.
  const unitDisplay = locale.toLowerCase().startsWith('tr') ? 'short' : 'narrow'
  const unit = (n: number, u: 'hour' | 'minute' | 'second', pad: boolean): string =>
    new Intl.NumberFormat(locale, { style: 'unit', unit: u, unitDisplay, minimumIntegerDigits: pad ? 2 : 1 }).format(n)
  if (h > 0) return `${unit(h, 'hour', false)} ${unit(m, 'minute', true)}`
  if (m > 0) return `${unit(m, 'minute', false)} ${unit(sec, 'second', true)}`
  return unit(sec, 'second', false)
}

/** Luxon/Intl locale for a UI language. */
export function intlLocale(language: 'tr' | 'en'): string {
  return language === 'tr' ? 'tr-TR' : 'en-GB'
}

/** A review score total (0–100, one decimal) in the UI's locale: 87.5 / 87,5. */
export function formatScore(total: number, locale: string): string {
  return numberFormat(locale, { maximumFractionDigits: 1 }).format(total)
}

/** A plain decimal numeral as services write them: "0.21", "-3", "87.5" (no grouping, no exponent). */
const PLAIN_DECIMAL = /^-?(?:0|[1-9]\d*)(?:\.(\d+))?$/

/**
 * A value the service sent as text, in the reader's terms: a plain number with the locale's
 * decimal mark ("0.21" → "0,21" in Turkish, with every digit the service gave), true/false
 * as the language's yes/no ("Evet"/"Hayır"); anything else as it came. Every view that shows
 * a service value goes through here, so no screen says "true" or "0.21" to a Turkish reader.
 */
export function formatValue(raw: string, locale: string, words: { yes: string; no: string }): string {
  const text = raw.trim()
  const lower = text.toLowerCase()
  if (lower === 'true') return words.yes
  if (lower === 'false') return words.no
  const m = PLAIN_DECIMAL.exec(text)
  if (!m || text.replace(/[-.]/g, '').replace(/^0+/, '').length > 15) return raw
  const digits = Math.min(20, m[1]?.length ?? 0)
  return numberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(Number(text))
}

/** An instant as a short date and time in the zone and locale: "29 Nov 2026, 11:47", "29 Kas 2026 11:47". */
export function formatShortDateTime(ms: number, zone: string, locale: string): string {
  try {
    return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone: zone }).format(ms)
  } catch {
    return DateTime.fromMillis(ms, { zone }).toFormat('yyyy-MM-dd HH:mm')
  }
}

/**
 * The status bar's word on the cache: when it last synced, or, when no sync has finished but
 * one stopped, when the first sync stopped and that Start continues it.
 */
export interface CacheFreshnessInput {
  lastSyncAt: number | null
  stoppedAt?: number | null
  calls: number
}

export type CacheFreshness =
  { kind: 'synced'; at: number } | { kind: 'firstStopped'; at: number } | { kind: 'notFinished' } | { kind: 'never' }

export function cacheFreshness(cache: CacheFreshnessInput | null): CacheFreshness {
  if (cache?.lastSyncAt != null) return { kind: 'synced', at: cache.lastSyncAt }
  if (cache?.stoppedAt != null) return { kind: 'firstStopped', at: cache.stoppedAt }
  // Calls stored by runs that were stopped: the cache is not empty, only no run has finished.
  if ((cache?.calls ?? 0) > 0) return { kind: 'notFinished' }
  return { kind: 'never' }
}
