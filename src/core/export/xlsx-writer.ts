import type { Writable } from 'node:stream'
import type { CallRecord } from '../../shared/domain'
import { DateCell, NumberCell, type Cell } from './cells'
import type { ProgressThrottle } from './progress'
import { drained, pump, throwIfAborted } from './pump'
import type { HeaderLabels } from './header-labels'
import type { ColumnKind, TabularPlan } from './tabular'
import type { WriteResult } from './types'
import type { ZoneClock } from './zoned-time'
import { failureOf } from './atomic-file'
import type { ScorecardSheets } from './review-columns'

export interface XlsxJob {
  out: Writable
  records: Iterable<CallRecord>
  plan: TabularPlan
  clock: ZoneClock
  /** The "Export" sheet's rows after the counts: label and value, texts already guarded. */
  about: Array<[string, string | number | DateCell]>
  progress: ProgressThrottle
  signal: AbortSignal | undefined
  labels: HeaderLabels
  /** With the `review` column: one sheet per scorecard, collected while the calls stream. */
  scorecards?: ScorecardSheets
  zone?: string
}

const DATE_FORMAT = 'yyyy-mm-dd hh:mm:ss'
/** Excel refuses longer cell texts. */
const MAX_CELL_CHARS = 32_767
/** Characters XML 1.0 does not allow; one of them makes the whole workbook unreadable. */
const XML_ILLEGAL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g

const WIDTHS: Record<ColumnKind, number> = { id: 24, date: 20, text: 40, longText: 80, value: 18 }

/**
 * XLSX through exceljs' streaming WorkbookWriter: each row is committed as it is made, no
 * shared strings table (it would hold every text in memory), styles on for the date format.
 */
export async function writeXlsx(job: XlsxJob): Promise<WriteResult> {
  const { plan, clock, out, signal, labels } = job
  // Loaded here, not at the top: exceljs is over half of what every CLI command and the app
  // spend on start-up, and only an XLSX export needs it.
  const { default: ExcelJS } = await import('exceljs')
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false })
  try {
    const sheet = workbook.addWorksheet(labels.dataSheet, { views: [{ state: 'frozen', ySplit: 1 }] })
    sheet.columns = plan.columns.map((c) => ({
      width: WIDTHS[c.kind],
      ...(c.kind === 'date' ? { style: { numFmt: DATE_FORMAT } } : {})
    }))
    const header = sheet.addRow(plan.columns.map((c) => xlsxText(c.header)))
    header.font = { bold: true }
    header.commit()
    // Filter buttons on the header row: the first thing an analyst does with a workbook.
    if (plan.columns.length > 0) sheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: plan.columns.length } }

    const toValue = (cell: Cell): string | number | Date =>
      typeof cell === 'string' ? xlsxText(cell) : cell instanceof NumberCell ? cell.value : clock.wallClock((cell as DateCell).at)

    const styles = new SharedStyles(plan.columns.map((c) => (c.kind === 'date' ? { numFmt: DATE_FORMAT } : {})))
    let rows = 0
    const count = await pump(job.records, signal, job.progress, (record) => {
      job.scorecards?.add(record)
      for (const row of plan.rowsOf(record)) {
        const added = sheet.addRow(row.map(toValue))
        styles.apply(added)
        added.commit()
        rows += 1
      }
      if (out.errored) throw out.errored
      // exceljs gives no backpressure of its own; the file stream's is the one that matters.
      return out.writableNeedDrain ? drained(out, signal) : undefined
    })
    sheet.commit()

    for (const card of job.scorecards?.sheets(job.zone ?? 'UTC') ?? []) {
      const ws = workbook.addWorksheet(card.name, { views: [{ state: 'frozen', ySplit: 1 }] })
      ws.columns = card.header.map((_, i) => ({
        width: i === 0 ? WIDTHS.id : i === 1 ? WIDTHS.date : 14,
        ...(i === 1 ? { style: { numFmt: DATE_FORMAT } } : {})
      }))
      const head = ws.addRow(card.header.map(xlsxText))
      head.font = { bold: true }
      head.commit()
      for (const row of card.rows) ws.addRow(row.map(toValue)).commit()
      ws.commit()
    }

    const about = workbook.addWorksheet(labels.aboutSheet)
    about.columns = [{ width: 22 }, { width: 80, style: { alignment: { wrapText: true, vertical: 'top' } } }]
    const aboutHeader = about.addRow([labels.field, labels.value])
    aboutHeader.font = { bold: true }
    aboutHeader.commit()
    const aboutRows: Array<[string, string | number | DateCell]> = [[labels.calls, count], [labels.rows, rows], ...job.about]
    for (const [label, value] of aboutRows) {
      const r = about.addRow([
        label,
        typeof value === 'string' ? xlsxText(value) : value instanceof DateCell ? clock.wallClock(value.at) : value
      ])
      if (value instanceof DateCell) r.getCell(2).numFmt = DATE_FORMAT
      r.commit()
    }
    about.commit()
    throwIfAborted(signal)
    // exceljs waits for 'finish' alone, which never comes once the file stream has failed.
    await Promise.race([workbook.commit(), failureOf(out)])
    return { count, rows }
  } catch (e) {
    abortZip(workbook)
    throw e
  }
}

/**
 * exceljs gives every cell a style object of its own and, on commit, renders each to XML to
 * find its style id: most of a workbook's time. It remembers ids by object, so cells of one
 * column and value type are given one shared object (the column's style, as exceljs would
 * have merged it), and each style is rendered once.
 */
class SharedStyles {
  private readonly byColumn: Array<Map<number, object>>

  constructor(private readonly columnStyles: ReadonlyArray<Record<string, unknown>>) {
    this.byColumn = columnStyles.map(() => new Map())
  }

  apply(row: { eachCell(f: (cell: { type: number; style: object }, column: number) => void): void }): void {
    row.eachCell((cell, column) => {
      const styles = this.byColumn[column - 1]
      if (styles === undefined) return
      let style = styles.get(cell.type)
      if (style === undefined) styles.set(cell.type, (style = { ...this.columnStyles[column - 1] }))
      cell.style = style
    })
  }
}

/** Text as a workbook can hold it; neutralization has already happened where it applies. */
export function xlsxText(text: string): string {
  const clean = text.replace(XML_ILLEGAL, '\uFFFD')
  return clean.length > MAX_CELL_CHARS ? `${clean.slice(0, MAX_CELL_CHARS - 1)}…` : clean
}

/** Stops the zip archiver so nothing keeps writing after a failure (its typings omit it). */
function abortZip(workbook: unknown): void {
  const zip = (workbook as { zip?: { abort?: () => void; on?: (e: string, f: () => void) => void } }).zip
  zip?.on?.('error', () => undefined)
  zip?.abort?.()
}
