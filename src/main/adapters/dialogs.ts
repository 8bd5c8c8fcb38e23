import { basename, join } from 'node:path'
import type { ExportDialogs } from '../../core/app/host-ports'
import { CallsightError } from '../../core/errors'

type Format = Parameters<ExportDialogs['chooseExportFile']>[1]

/** The part of Electron's dialog.showSaveDialog the export dialog uses. */
export type ShowSaveDialog = (options: {
  title: string
  defaultPath: string
  filters: { name: string; extensions: string[] }[]
  properties: ['createDirectory', 'showOverwriteConfirmation']
}) => Promise<{ canceled: boolean; filePath?: string | undefined }>

const FILTERS: Record<Format, { name: string; extensions: string[] }> = {
  csv: { name: 'CSV', extensions: ['csv'] },
  xlsx: { name: 'Excel workbook', extensions: ['xlsx'] },
  json: { name: 'JSON', extensions: ['json'] },
  ndjson: { name: 'JSON lines', extensions: ['ndjson', 'jsonl'] }
}

/** The part of Electron's shell a finished export uses: open it, or show it in its folder. */
export interface FileShell {
  /** Resolves to an error message, '' on success (Electron's shell.openPath). */
  openPath(path: string): Promise<string>
  showItemInFolder(path: string): void
}

export function createExportDialogs(showSaveDialog: ShowSaveDialog, defaultDir: () => string, files?: FileShell): ExportDialogs {
  return {
    ...(files
      ? {
          async openFile(file: string) {
            const failed = await files.openPath(file)
            if (failed) throw new CallsightError('Internal', `The file could not be opened: ${failed}`)
          },
          showInFolder(file: string) {
            files.showItemInFolder(file)
          }
        }
      : {}),
    async chooseExportFile(defaultName, format) {
      const filter = FILTERS[format]
      // Only a bare file name from the caller: the folder is the user's choice.
      let name = basename(defaultName) || 'callsight-export'
      if (!filter.extensions.some((ext) => name.toLowerCase().endsWith(`.${ext}`))) name += `.${filter.extensions[0]}`
      const result = await showSaveDialog({
        title: 'Export calls',
        defaultPath: join(defaultDir(), name),
        filters: [filter],
        properties: ['createDirectory', 'showOverwriteConfirmation']
      })
      if (result.canceled || !result.filePath) return null
      return result.filePath
    }
  }
}
