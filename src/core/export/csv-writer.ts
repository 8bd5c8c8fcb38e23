import type { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { stringify } from 'csv-stringify'
import { type DateCell, NumberCell, type Cell } from './cells'
import type { ProgressThrottle } from './progress'
import { drained, pump } from './pump'
import type { TabularPlan } from './tabular'
import type { WriteResult } from './types'
import type { ZoneClock } from './zoned-time'
import type { CallRecord, CsvDialect, HeaderLanguage } from '../../shared/domain'
import { CallsightError } from '../errors'

const closedEarly = (): CallsightError =>
  new CallsightError('Storage', 'The export file was closed before it was complete. No file was written.')

export interface CsvJob {
  /** A file being written, or (browser mode) the HTTP response of a download. */
  out: Writable
  records: Iterable<CallRecord>
  plan: TabularPlan
  clock: ZoneClock
  progress: ProgressThrottle
  signal: AbortSignal | undefined
  dialect?: CsvDialect
}

/** The dialect a spreadsheet in that language opens without an import wizard. */
export function defaultDialect(language: HeaderLanguage): CsvDialect {
  return language === 'tr' ? 'semicolon' : 'comma'
}

/**
 * A number in the dialect: the service's own digits, with a decimal comma where the
 * separator is ';' (no grouping, so the spreadsheet reads it back as the same number).
 */
export function numberText(cell: NumberCell, dialect: CsvDialect): string {
  return dialect === 'semicolon' ? cell.text.replace('.', ',') : cell.text
}

/**
 * csv-stringify quotes a field with a line break only when the break equals its record
 * delimiter; with CRLF records a bare CR or LF was written unquoted, and a spreadsheet read
 * it as the end of the row. Every field holding CR or LF is quoted.
 */
const LINE_BREAK = /[\r\n]/

/**
 * RFC 4180 CSV (CRLF, double-quote quoting; ',' or ';' by dialect) with a UTF-8 BOM so Excel reads Turkish text
 * right. Formula neutralization is done on the cells beforehand, not by csv-stringify's
 * escape_formulas, whose list misses a leading LF and anything after a line break.
 */
export async function writeCsv(job: CsvJob): Promise<WriteResult> {
  const { plan, clock } = job
  const dialect = job.dialect ?? 'comma'
  const csv = stringify({
    bom: true,
    delimiter: dialect === 'semicolon' ? ';' : ',',
    record_delimiter: 'windows',
    escape_formulas: false,
    quoted_match: LINE_BREAK
  })
  const piping = pipeline(csv, job.out)
  // pipeline reports the failure; this only keeps an early rejection from going unhandled.
  piping.catch(() => undefined)

  const toText = (cell: Cell): string =>
    typeof cell === 'string' ? cell : cell instanceof NumberCell ? numberText(cell, dialect) : clock.iso((cell as DateCell).at)

  let rows = 0
  try {
    csv.write(plan.columns.map((c) => c.header))
    const count = await pump(job.records, job.signal, job.progress, (record) => {
      if (csv.destroyed) return piping.then(() => Promise.reject(closedEarly()))
      let full = false
      for (const row of plan.rowsOf(record)) {
        full = !csv.write(row.map(toText)) || full
        rows += 1
      }
      return full ? drained(csv, job.signal) : undefined
    })
    csv.end()
    await piping
    return { count, rows }
  } catch (e) {
    csv.destroy()
    await piping.catch(() => undefined)
    throw e
  }
}
