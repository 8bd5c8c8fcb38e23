import type { Writable } from 'node:stream'
import { type DateCell, NumberCell, type Cell } from './cells'
import type { ProgressThrottle } from './progress'
import { drained, pump, throwIfAborted } from './pump'
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

const BOM = '\uFEFF'
const RECORD_END = '\r\n'
/** Writes go out in chunks of about this size: one write per row costs more than the row itself. */
const CHUNK_BYTES = 256 * 1024

/**
 * A field as RFC 4180 writes it: quoted when it holds the separator, a double quote, CR or
 * LF (a bare CR or LF too: a spreadsheet reads either as the end of the row), its quotes
 * doubled; an empty field stays empty. The same bytes csv-stringify wrote with our options
 * (the golden test holds them), without its per-record machinery, which was a fifth of an
 * export's time.
 */
export function csvField(value: string, separator: string): string {
  if (value.length === 0) return value
  const quote = value.includes('"')
  if (!quote && !value.includes(separator) && !value.includes('\n') && !value.includes('\r')) return value
  return `"${quote ? value.replaceAll('"', '""') : value}"`
}

/**
 * RFC 4180 CSV (CRLF, double-quote quoting; ',' or ';' by dialect) with a UTF-8 BOM so Excel reads Turkish text
 * right. Formula neutralization is done on the cells beforehand (cells.ts): the writer only quotes.
 */
export async function writeCsv(job: CsvJob): Promise<WriteResult> {
  const { plan, clock, out, signal } = job
  const dialect = job.dialect ?? 'comma'
  const separator = dialect === 'semicolon' ? ';' : ','

  const field = (cell: Cell): string =>
    csvField(
      typeof cell === 'string' ? cell : cell instanceof NumberCell ? numberText(cell, dialect) : clock.iso((cell as DateCell).at),
      separator
    )
  const line = (cells: readonly Cell[]): string => {
    let s = ''
    for (let i = 0; i < cells.length; i++) s += i === 0 ? field(cells[i]!) : separator + field(cells[i]!)
    return s + RECORD_END
  }

  // Lines are encoded into a chunk as they are made: a string of many lines appended one
  // by one is a rope, and flattening it to write cost more than quoting every field.
  let chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  let used = 0
  const flush = (): Promise<void> | undefined => {
    // A cancel may close the download before the next batch sees the signal: it is still a
    // cancel. Otherwise a download the browser closed, or a file stream that failed: stop.
    throwIfAborted(signal)
    if (out.destroyed || out.writableEnded) throw out.errored ?? closedEarly()
    if (used === 0) return undefined
    const full = !out.write(chunk.subarray(0, used))
    chunk = Buffer.allocUnsafe(CHUNK_BYTES)
    used = 0
    return full ? drained(out, signal) : undefined
  }
  /** Adds a line; a line longer than a chunk goes out on its own. */
  const add = (text: string): Promise<void> | undefined => {
    // Three bytes per UTF-16 unit at most (a surrogate pair is four bytes for two units).
    if (used + text.length * 3 > CHUNK_BYTES) {
      const pending = flush()
      if (text.length * 3 > CHUNK_BYTES) {
        const full = !out.write(text)
        return pending ?? (full ? drained(out, signal) : undefined)
      }
      used = chunk.write(text, 0)
      return pending
    }
    used += chunk.write(text, used)
    return undefined
  }

  add(BOM + line(plan.columns.map((c) => c.header)))
  let rows = 0
  const count = await pump(job.records, signal, job.progress, (record) => {
    let pending: Promise<void> | undefined
    for (const row of plan.rowsOf(record)) {
      pending = add(line(row)) ?? pending
      rows += 1
    }
    return pending
  })
  await flush()
  out.end()
  return { count, rows }
}
