import { DateTime } from 'luxon'
import type { ExportColumn } from '../../../../src/shared/domain'
import { expectedText, testGuard } from './fixtures'

export const ALL_COLUMNS: ExportColumn[] = ['callId', 'callDate', 'title', 'summary', 'analysis']

/** Written independently of the engine's own rule, so a drift shows. */
const PLAIN_NUMERAL = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?$/

/** What an analysis value becomes: a number when it is a plain numeral after masking, else a safe text. */
export function expectedValue(raw: string): { number: number; text: string } | { text: string } {
  const masked = testGuard(raw)
  if (PLAIN_NUMERAL.test(masked) && masked.replace(/[-.]/g, '').replace(/^0+/, '').length <= 15)
    return { number: Number(masked), text: masked }
  return { text: expectedText(raw) }
}

export const expectedId = (id: string): string => (/^[=+\-@\t\r\n]/.test(id) ? `'${id}` : id)

export const isoIn = (at: number, zone: string): string =>
  DateTime.fromMillis(at, { zone }).toISO({ suppressMilliseconds: true })!.replace(/Z$/, '+00:00')

/** The UTC fields of a spreadsheet date show the wall-clock time in the zone. */
export const wallClockMs = (at: number, zone: string): number => at + DateTime.fromMillis(at, { zone }).offset * 60_000
