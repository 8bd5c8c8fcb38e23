import { mkdir, rm } from 'node:fs/promises'
import type { Writable } from 'node:stream'
import { basename, dirname, resolve } from 'node:path'
import { z } from 'zod'
import {
  AnalysisLayout,
  CsvDialect,
  EpochMs,
  ExportColumn,
  ExportFormat,
  ExtraFieldColumn,
  HeaderLanguage,
  IanaZone,
  QueryCoverage
} from '../../shared/domain'
import { CallsightError } from '../errors'
import { describeColumns, describeLayout, describeQuery } from './about-sheet'
import { DateCell } from './cells'
import { defaultDialect, writeCsv } from './csv-writer'
import { writeAtomically } from './atomic-file'
import { writeJson } from './json-writer'
import { ProgressThrottle } from './progress'
import { throwIfAborted } from './pump'
import { headerLabels, type CoverageText } from './header-labels'
import { ScorecardSheets } from './review-columns'
import { planTabular } from './tabular'
import { TextGuard } from './text-guard'
import { writeToStream } from './streamed-output'
import type { ExportOptions, ExportResult, WriteResult } from './types'
import { writeXlsx } from './xlsx-writer'
import { ZoneClock } from './zoned-time'

const isIterable = (v: unknown): boolean =>
  typeof v === 'object' && v !== null && typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function'

/** The data part of the options; the callbacks and the signal are checked by TypeScript alone. */
const ExportOptionsData = z.object({
  file: z.string().trim().min(1, 'Choose a file to export to'),
  format: ExportFormat,
  columns: z.array(ExportColumn).min(1, 'Choose at least one column'),
  extraFields: z.array(ExtraFieldColumn).max(50).optional(),
  analysisLayout: AnalysisLayout,
  zone: IanaZone,
  headerLanguage: HeaderLanguage.default('en'),
  csvDialect: CsvDialect.optional(),
  sidecar: z.boolean().optional(),
  meta: z.object({
    query: z.unknown(),
    scope: z.unknown().optional(),
    coverage: QueryCoverage.optional(),
    appVersion: z.string().max(100),
    exportedAt: EpochMs
  }),
  source: z.object({
    total: z.number().int().nonnegative(),
    analysisKeys: z.array(z.object({ key: z.string(), friendlyName: z.string() })),
    records: z.custom<unknown>(isIterable, { message: 'The records must be iterable' })
  })
})

/**
 * The engine behind exportCalls, with the PII guard required. Kept apart from index.ts so
 * that the engine does not depend on which guard the app ships.
 */
export async function exportCallsWith(opts: ExportOptions & { guard: (text: string) => string }): Promise<ExportResult> {
  const checked = ExportOptionsData.safeParse(opts)
  if (!checked.success) {
    throw new CallsightError('InvalidInput', 'The export settings are not valid.', {
      fields: checked.error.issues.map((i) => ({ members: i.path.map(String), message: i.message }))
    })
  }
  const { format, zone, meta, source } = checked.data
  const labels = headerLabels(checked.data.headerLanguage)
  // Turkish Excel reads ';' and decimal commas; the headers' language picks the dialect unless asked.
  const dialect = checked.data.csvDialect ?? defaultDialect(checked.data.headerLanguage)
  const file = resolve(checked.data.file)
  const columns = [...new Set(checked.data.columns)]
  const signal = opts.signal
  const text = new TextGuard(opts.guard)
  const clock = new ZoneClock(zone)
  const progress = new ProgressThrottle(source.total, opts.onProgress)
  const records = opts.source.records
  if (signal?.aborted) throw new CallsightError('Cancelled', 'The export was cancelled; no file was written.')

  // What the file holds and whether synced scopes answer its query: the JSON header, and
  // beside a CSV (which has no place for it) the sidecar `<file>.meta.json`.
  const header = {
    application: 'Callsight',
    appVersion: text.mask(meta.appVersion),
    exportedAt: clock.iso(meta.exportedAt),
    zone,
    format,
    columns,
    total: source.total,
    query: text.deep(meta.query) ?? null,
    scope: text.deep(meta.scope) ?? null,
    coverage: text.deep(meta.coverage) ?? null
  }
  const durability = { durable: opts.durable ?? true }
  if (opts.sink && format !== 'csv') throw new CallsightError('InvalidInput', 'Only a CSV export can be streamed.')
  const write = async (out: Writable): Promise<WriteResult> => {
    throwIfAborted(signal)
    if (format === 'json' || format === 'ndjson') {
      const review = columns.includes('review') ? opts.source.review : undefined
      return writeJson({
        out,
        ndjson: format === 'ndjson',
        records,
        columns,
        header,
        text,
        clock,
        progress,
        signal,
        review,
        labels
      })
    }
    const review = columns.includes('review') ? opts.source.review : undefined
    const plan = planTabular({
      columns,
      extraFields: checked.data.extraFields ?? [],
      layout: opts.analysisLayout,
      analysisKeys: source.analysisKeys,
      zone,
      text,
      labels,
      review
    })
    if (format === 'csv') return writeCsv({ out, records, plan, clock, progress, signal, dialect })
    const about: Array<[string, string | number | DateCell]> = [
      [labels.exportedAt, new DateCell(meta.exportedAt)],
      [labels.timeZone, zone],
      [labels.appVersion, text.text(meta.appVersion)],
      [labels.columns, describeColumns(columns, labels.about)],
      [labels.analysisLayout, describeLayout(opts.analysisLayout, labels.about)],
      [labels.query, text.text(describeQuery(text.deep(meta.query), labels, clock))],
      [labels.scope, text.text(describe(text.deep(meta.scope)))],
      [labels.coverage, text.text(describeCoverage(meta.coverage, clock, labels.coverageText))]
    ]
    const scorecards = review ? new ScorecardSheets(review, text, labels) : undefined
    return writeXlsx({ out, records, plan, clock, about, progress, signal, labels, scorecards, zone })
  }
  // Browser mode streams a CSV into the download; everything else is a file that appears whole or not at all.
  const result = opts.sink ? await writeToStream(opts.sink, basename(file), write, signal) : await writeAtomically(file, write, durability)
  if (format !== 'csv' || checked.data.sidecar === false) {
    progress.complete(result.count)
    return { file, ...result }
  }
  const metaFile = csvMetaFile(file)
  try {
    // A streamed CSV was written nowhere: the host need not have kept a folder where `file` names it.
    if (opts.sink) await mkdir(dirname(metaFile), { recursive: true, mode: 0o700 })
    await writeAtomically(
      metaFile,
      (out) => {
        out.end(`${JSON.stringify({ ...header, file: basename(file) }, null, 2)}\n`)
        return Promise.resolve()
      },
      durability
    )
  } catch (e) {
    // A CSV whose coverage cannot be recorded is not left to look like a whole answer.
    await rm(file, { force: true }).catch(() => undefined)
    throw e
  }
  progress.complete(result.count)
  return { file, metaFile, ...result }
}

/** The sidecar that records a CSV export's query, time and coverage: `calls.csv` → `calls.csv.meta.json`. */
export function csvMetaFile(file: string): string {
  return `${file}.meta.json`
}

/** Whether synced scopes answer the whole query, and what they miss, for the About sheet, in its language. */
function describeCoverage(c: QueryCoverage | undefined, clock: ZoneClock, words: CoverageText): string {
  if (c === undefined) return '—'
  if (c.complete) return words.complete
  const gaps = c.missing.map((g) => {
    const what = [
      g.callTypes.length > 0 ? words.callType(g.callTypes.join(', ')) : null,
      g.direction !== null ? words.direction(g.direction) : null,
      words.results(Array.isArray(g.results) ? g.results.join(',') : String(g.results)),
      g.hasNewRequest !== null ? words.newRequest(g.hasNewRequest) : null,
      g.analysis ? words.withAnalysis : null
    ]
    const range = g.from !== null && g.to !== null ? `${clock.iso(g.from)} – ${clock.iso(g.to)}` : words.nothingSynced
    return `${what.filter((w) => w !== null).join(', ')}: ${range}`
  })
  return words.incomplete(gaps.join('; '))
}

/** Query and scope as readable JSON; absent means "—" rather than an empty cell. */
function describe(value: unknown): string {
  if (value === undefined || value === null) return '—'
  if (typeof value === 'string') return value
  return JSON.stringify(value, null, 2) ?? '—'
}
