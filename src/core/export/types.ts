import type { Writable } from 'node:stream'
import type {
  AnalysisLayout,
  CallRecord,
  CsvDialect,
  ExportColumn,
  ExportFormat,
  ExtraFieldColumn,
  HeaderLanguage,
  QueryCoverage
} from '../../shared/domain'
import type { ExportProgressEvent } from './progress'
import type { ReviewLookup } from './review-columns'

/** What the cache's search.iterate(selection) hands over: a count, the keys, and a stream of records. */
export interface ExportSource {
  total: number
  /** Every analysis key present in the selection, for the wide layout's headers. */
  analysisKeys: Array<{ key: string; friendlyName: string }>
  /** In order; typically a better-sqlite3 stmt.iterate(), read once. */
  records: Iterable<CallRecord>
  /** The annotations beside the calls, for the `review` column (docs/review.md). */
  review?: ReviewLookup
}

export interface ExportMeta {
  query: unknown
  scope?: unknown
  /** Whether synced scopes answer the exported query (a query selection only). */
  coverage?: QueryCoverage
  appVersion: string
  /** Epoch ms. */
  exportedAt: number
}

export interface ExportOptions {
  source: ExportSource
  /** The final path. Nothing appears there unless the export completes. */
  file: string
  format: ExportFormat
  columns: ExportColumn[]
  /** CSV and XLSX: the record's extra fields written where `extra` is among the columns. */
  extraFields?: ExtraFieldColumn[]
  analysisLayout: AnalysisLayout
  /** IANA zone for callDate. */
  zone: string
  /** The language of the headers and the metadata sheet; English when absent. */
  headerLanguage?: HeaderLanguage
  /** CSV: separator and decimal mark; the headers' language decides when absent (tr: ';' and ','). */
  csvDialect?: CsvDialect
  /** CSV: write the `<file>.meta.json` sidecar beside it; true when absent. */
  sidecar?: boolean
  /**
   * Flush the file to disk before it takes its name; true when absent. A staged copy that is
   * sent to the browser and then deleted has nothing to keep across a crash.
   */
  durable?: boolean
  /**
   * CSV only: write into this stream instead of `file` (browser mode streams the download
   * while it is written). Ended when the export is complete; destroyed, with the error, on a
   * cancel or a failure, so the receiver never takes a part for the whole. `file` still
   * names the sidecar (its folder is made when the sidecar is written: nothing else is).
   */
  sink?: Writable
  meta: ExportMeta
  signal?: AbortSignal
  /** About ten times a second at most, plus the first and the last. */
  onProgress?: (p: ExportProgressEvent) => void
  /** The PII guard, run on every text on the way out. */
  guard?: (text: string) => string
}

export interface ExportResult {
  file: string
  /** CSV only: the sidecar with the query, export time and coverage (docs/cli.md, "export"). */
  metaFile?: string
  /** Calls written. */
  count: number
  /** Data rows written: calls, or analysis items in the long layout; JSON and NDJSON: calls. */
  rows: number
}

export interface WriteResult {
  count: number
  rows: number
}
