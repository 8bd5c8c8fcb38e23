import { maskText } from '../pii'
import { exportCallsWith } from './export-calls'
export { csvMetaFile } from './export-calls'
import type { ExportOptions, ExportResult } from './types'

export type { ExportMeta, ExportOptions, ExportResult, ExportSource } from './types'
export type { ExportProgressEvent } from './progress'
export { neutralizeFormula, parseRealNumber } from './cells'

/**
 * Writes the source's calls to `file` as CSV, XLSX, JSON or NDJSON, streaming, with every
 * text passed through the PII guard (maskText unless another is given) and neutralized
 * against formula injection. The file appears only when complete; a cancel or a failure
 * throws CallsightError 'Cancelled' or 'Storage' and leaves nothing behind.
 */
export function exportCalls(opts: ExportOptions): Promise<ExportResult> {
  return exportCallsWith({ ...opts, guard: opts.guard ?? maskText })
}
