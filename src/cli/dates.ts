import { DateTime } from 'luxon'
import { CallsightError } from '../core/errors'

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/

/**
 * An ISO date or date-time from the command line as an instant. Without an offset it is
 * read in `zone`. A date alone means the start of that day, or for an end (`--to`) the
 * start of the next day, so `--to 2026-01-31` includes the 31st.
 */
export function parseIsoArg(raw: string, zone: string, flag: string, end = false): number {
  const dt = DateTime.fromISO(raw.trim(), { zone, setZone: true })
  if (!dt.isValid)
    throw new CallsightError('InvalidInput', `${flag}: "${raw}" is not an ISO date or date-time (e.g. 2026-01-31 or 2026-01-31T08:00:00).`)
  const instant = end && DATE_ONLY.test(raw.trim()) ? dt.plus({ days: 1 }) : dt
  return instant.toMillis()
}

export const systemZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'
