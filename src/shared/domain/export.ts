/** Export requests, formats and progress. */
import { z } from 'zod'
import { AppErrorInfo } from '../errors'
import { ColumnSort } from './records'
import { SearchQuery } from './search'
import { IanaZone } from './time'

export const ExportFormat = z.enum(['csv', 'xlsx', 'json', 'ndjson'])
export type ExportFormat = z.infer<typeof ExportFormat>
/** `review`: the call's annotation (status, tags, note, score…; docs/review.md). */
export const ExportColumn = z.enum(['callId', 'callDate', 'title', 'summary', 'analysis', 'review', 'extra'])

/**
 * One of the record's extra fields (agentName, durationSeconds, language…) as an export column,
 * at the place of `extra` among the columns, under the header the user named it in the
 * export's language.
 */
export const ExtraFieldColumn = z.object({ key: z.string().min(1).max(200), header: z.string().trim().min(1).max(200) })
export type ExtraFieldColumn = z.infer<typeof ExtraFieldColumn>
export type ExportColumn = z.infer<typeof ExportColumn>
export const AnalysisLayout = z.enum(['wide', 'long'])
export type AnalysisLayout = z.infer<typeof AnalysisLayout>

// ---------------------------------------------------------------------------------------
// Export
// ---------------------------------------------------------------------------------------

/** Inclusive [first, last] offsets into a query's results, in its order. */
export const OffsetRange = z
  .tuple([z.number().int().min(0).max(100_000_000), z.number().int().min(0).max(100_000_000)])
  .refine(([first, last]) => first <= last, { message: 'A range must not end before it starts' })
export type OffsetRange = z.infer<typeof OffsetRange>

export const ExportSelection = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('ids'), ids: z.array(z.string().min(1).max(200)).min(1).max(1_000_000) }),
  /** `sortBy`: the results list's column sort, which the file follows (absent: the query's own order). */
  z.object({ kind: z.literal('query'), query: SearchQuery, sortBy: ColumnSort.optional() }),
  /** A hand selection over a query's results, as the renderer holds it: core walks the ranges in the list's order. */
  z.object({
    kind: z.literal('ranges'),
    query: SearchQuery,
    ranges: z.array(OffsetRange).min(1).max(100_000),
    sortBy: ColumnSort.optional()
  })
])
export type ExportSelection = z.infer<typeof ExportSelection>

/** The language an export writes its own words in (headers, metadata sheet). */
export const HeaderLanguage = z.enum(['en', 'tr'])
export type HeaderLanguage = z.infer<typeof HeaderLanguage>

/**
 * A CSV's separator and decimal mark: `comma` (',' and '.', English spreadsheets) or
 * `semicolon` (';' and ',', what Turkish Excel and LibreOffice expect).
 */
export const CsvDialect = z.enum(['comma', 'semicolon'])
export type CsvDialect = z.infer<typeof CsvDialect>

export const ExportRequest = z.object({
  selection: ExportSelection,
  format: ExportFormat,
  columns: z.array(ExportColumn).min(1),
  analysisLayout: AnalysisLayout.default('wide'),
  headerLanguage: HeaderLanguage.default('en'),
  /** CSV: the headers' language decides when absent. */
  csvDialect: CsvDialect.optional(),
  /** CSV: also hand over the `.meta.json` sidecar (browser mode downloads it as a second file). */
  sidecar: z.boolean().optional(),
  /** Zone for callDate cells; the display zone when absent. */
  zone: IanaZone.optional(),
  /** The record's extra fields written at the place of the `extra` column. */
  extraFields: z.array(ExtraFieldColumn).max(50).optional()
})
export type ExportRequest = z.infer<typeof ExportRequest>

/**
 * Browser mode (`callsight serve`): the finished export is fetched once from this same-origin
 * path and saved by the browser, so the page never names a path on the computer.
 */
export const ExportDownload = z.object({
  url: z.string().regex(/^\/downloads\/[A-Za-z0-9_-]{16,128}$/),
  name: z.string().min(1).max(255)
})
export type ExportDownload = z.infer<typeof ExportDownload>

export const ExportProgress = z.object({
  exportId: z.string(),
  phase: z.enum(['writing', 'done', 'failed', 'cancelled']),
  written: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  /**
   * The file written, once done (in browser mode the staged copy the page downloads). Null
   * while writing, and for a CSV streamed into the browser's download: no file was written.
   */
  file: z.string().nullable(),
  /** Browser mode, once done: where the page downloads the file from. */
  download: ExportDownload.optional(),
  /** Browser mode, a CSV once done: its sidecar with the query and coverage (`<file>.meta.json`). */
  metaDownload: ExportDownload.optional(),
  error: AppErrorInfo.optional()
})
export type ExportProgress = z.infer<typeof ExportProgress>
