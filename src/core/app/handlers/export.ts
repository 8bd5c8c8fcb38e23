import type { Writable } from 'node:stream'
import type { ExportProgress, ExportRequest, ExportSelection } from '../../../shared/domain'
import { CallsightError, toErrorInfo } from '../../errors'
import { exportCalls } from '../../export'
import { reviewLookup } from '../../review/review-service'
import type { AccountRuntime } from '../account-runtime'
import type { AppState } from '../app-state'
import type { Handlers } from '../host-ports'

export type ExportHandlers = Pick<Handlers, 'export.start' | 'export.cancel' | 'export.reveal'>

/** Finished exports the user may still open from their toast. */
const FINISHED_KEPT = 20

/** Exporting a selection of the active account's cache to a file the user chooses. */
export function exportHandlers(state: AppState): ExportHandlers {
  const { platform, exports } = state
  /** exportId → the file it wrote: the renderer names an export, never a path. */
  const finished = new Map<string, string>()

  /** Writes the file as a task on a read-only connection, so searches go on meanwhile. */
  function startExport(rt: AccountRuntime, req: ExportRequest, file: string, sink: Writable | null): string {
    const zone = req.zone ?? state.displayZone()
    return exports.start({ file }, async (signal, exportId) => {
      const emit = (p: Omit<ExportProgress, 'exportId'>): void => platform.events.emit('export.progress', { exportId, ...p })
      const reader = rt.openReader()
      try {
        const source = { ...reader.search.iterate(req.selection), review: reviewLookup(reader.cache) }
        emit({ phase: 'writing', written: 0, total: source.total, file: null })
        const result = await exportCalls({
          source,
          file,
          format: req.format,
          columns: req.columns,
          ...(req.extraFields ? { extraFields: req.extraFields } : {}),
          analysisLayout: req.analysisLayout,
          headerLanguage: req.headerLanguage,
          ...(req.csvDialect ? { csvDialect: req.csvDialect } : {}),
          // Browser mode downloads each file it is handed: the sidecar only when asked for.
          sidecar: req.sidecar ?? platform.dialogs.offerDownload === undefined,
          // The staged copy is sent once and deleted: flushing it to disk first only delays the download.
          durable: platform.dialogs.offerDownload === undefined,
          // Browser mode, a CSV: written straight into the browser's download.
          ...(sink ? { sink } : {}),
          zone,
          meta: {
            query: selectionMeta(req.selection, source.total),
            scope: rt.account.label,
            ...(req.selection.kind === 'ids' ? {} : { coverage: reader.search.coverage(req.selection.query) }),
            appVersion: platform.appVersion,
            exportedAt: platform.clock.now()
          },
          signal,
          // The export reports its total once the file is complete; here "done" says so, with
          // the file and its download, so the page never sees a whole bar without them.
          onProgress: (p) => {
            if (p.written < p.total) emit({ phase: 'writing', written: p.written, total: p.total, file: null })
          }
        })
        // Browser mode hands the finished file to the page as a one-time download; a streamed
        // one is complete in the browser already, and there is no file to open.
        const download = sink ? null : platform.dialogs.offerDownload?.(result.file)
        if (!download && !sink) {
          if (finished.size >= FINISHED_KEPT) finished.delete(finished.keys().next().value!)
          finished.set(exportId, result.file)
        }
        const metaDownload = result.metaFile ? platform.dialogs.offerDownload?.(result.metaFile) : null
        emit({
          phase: 'done',
          written: result.count,
          total: result.count,
          // A streamed CSV is in the browser's download only: no file on this computer to name.
          file: sink ? null : result.file,
          ...(download ? { download } : {}),
          ...(metaDownload ? { metaDownload } : {})
        })
      } catch (e) {
        const error = toErrorInfo(e)
        if (error.code === 'Internal') platform.logger.log('error', 'export failed', { error: String(e) })
        emit({ phase: error.code === 'Cancelled' ? 'cancelled' : 'failed', written: 0, total: 0, file: null, error })
      } finally {
        reader.close()
        // A failure before the writer began (the settings, the cache) still fails the download.
        if (sink && !sink.writableFinished) sink.destroy()
      }
    })
  }

  return {
    'export.start': async (req) => {
      state.requireRuntime()
      const stamp = new Date(platform.clock.now()).toISOString().slice(0, 10)
      const file = await platform.dialogs.chooseExportFile(`callsight-${stamp}.${req.format}`, req.format)
      if (!file) return { started: false as const }
      // The choice is remembered for the next export.
      const s = state.settings()
      state.saveSettings({ ...s, export: { ...s.export, format: req.format, columns: req.columns, analysisLayout: req.analysisLayout } })
      const stream = req.format === 'csv' ? (platform.dialogs.streamDownload?.(file) ?? null) : null
      try {
        const exportId = startExport(state.requireRuntime(), req, file, stream?.sink ?? null)
        return { started: true as const, exportId, file, ...(stream ? { download: stream.download } : {}) }
      } catch (e) {
        stream?.sink.destroy()
        throw e
      }
    },
    'export.cancel': async ({ exportId }) => {
      exports.cancel(exportId)
      return { ok: true as const }
    },
    'export.reveal': async ({ exportId, how }) => {
      const file = finished.get(exportId)
      const { openFile, showInFolder } = platform.dialogs
      if (file === undefined) throw new CallsightError('NotFound', 'That export is no longer known; export again to open it.')
      if (!openFile || !showInFolder) throw new CallsightError('InvalidInput', 'Opening files is only possible in the desktop app.')
      if (how === 'open') await openFile(file)
      else showInFolder(file)
      return { ok: true as const }
    }
  }
}

/** What the export's header says was exported: the query, and for a hand selection how much of it. */
function selectionMeta(selection: ExportSelection, total: number): unknown {
  switch (selection.kind) {
    case 'query':
      return selection.sortBy ? { ...selection.query, sortBy: selection.sortBy } : selection.query
    case 'ranges':
      return { query: selection.query, selectedRows: total, ...(selection.sortBy ? { sortBy: selection.sortBy } : {}) }
    case 'ids':
      return { ids: selection.ids.length }
  }
}
