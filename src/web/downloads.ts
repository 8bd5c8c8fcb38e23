import { randomBytes } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, rmdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative, sep } from 'node:path'
import type { ExportDialogs, ExportDownload } from '../core/app/host-ports'
import { ResponseSink } from './stream-download'

type Format = Parameters<ExportDialogs['chooseExportFile']>[1]

export interface StagedDownload {
  file: string
  /** The name the browser saves it under. */
  name: string
}

/**
 * Exports in browser mode: the page never names a path on this computer. The export is
 * written into a private staging folder (0700, removed when the server stops), then offered
 * once at /downloads/<random id>; the browser saves it where the user keeps downloads, and
 * the staged copy is deleted after it was sent. A CSV is not staged: the browser's download
 * receives it while it is written (./stream-download.ts), at a URL of the same shape, and no
 * folder is kept for it (only a sidecar asked for is staged, in a folder of its own).
 */
export interface DownloadStaging {
  readonly root: string
  /** The export dialog of the browser shell: a fresh staging path, never a question. */
  readonly dialogs: ExportDialogs
  /** The finished export, by the id in its URL; null for an unknown or already taken id. */
  take(id: string): StagedDownload | null
  /**
   * A download the export is still writing (a streamed CSV), by the id in its URL, once:
   * null for an unknown, taken or ended id. Joined to the browser's request with `attach`.
   */
  takeStream(id: string): { sink: ResponseSink; name: string } | null
  /** A download that did not complete goes back, so the page can ask again. */
  putBack(id: string, entry: StagedDownload): void
  /** Deletes a staged file (after it was sent). */
  discard(entry: StagedDownload): void
  close(): void
}

const EXTENSIONS: Record<Format, string> = { csv: 'csv', xlsx: 'xlsx', json: 'json', ndjson: 'ndjson' }

export interface StagingOptions {
  /** The system's temp folder when absent. */
  parent?: string
  /**
   * CSV exports are streamed into the browser's download while they are written (true when
   * absent); false stages the whole file first, as for the other formats.
   */
  stream?: boolean
  /** How far a streamed export may run ahead of the browser (./stream-download.ts's AHEAD_BYTES when absent). */
  streamAheadBytes?: number
}

export function createDownloadStaging(opts: StagingOptions = {}): DownloadStaging {
  const root = mkdtempSync(join(opts.parent ?? tmpdir(), 'callsight-downloads-'))
  const offered = new Map<string, StagedDownload>()
  const streams = new Map<string, { sink: ResponseSink; name: string }>()
  const inside = (file: string): boolean => {
    const rel = relative(root, file)
    return rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep)
  }

  const dialogs: ExportDialogs = {
    async chooseExportFile(defaultName, format) {
      let name = basename(defaultName).replace(/[^\w.-]+/g, '-') || 'callsight-export'
      if (!name.toLowerCase().endsWith(`.${EXTENSIONS[format]}`)) name += `.${EXTENSIONS[format]}`
      // One folder per export keeps the file's own name for the browser.
      const dir = join(root, randomBytes(8).toString('hex'))
      mkdirSync(dir, { mode: 0o700 })
      return join(dir, name)
    },
    offerDownload(file: string): ExportDownload | null {
      if (!inside(file)) return null
      const id = randomBytes(24).toString('base64url')
      offered.set(id, { file, name: basename(file) })
      return { url: `/downloads/${id}`, name: basename(file) }
    },
    ...(opts.stream === false
      ? {}
      : {
          streamDownload(file: string) {
            if (!inside(file)) return null
            const id = randomBytes(24).toString('base64url')
            const sink = new ResponseSink(opts.streamAheadBytes === undefined ? {} : { aheadBytes: opts.streamAheadBytes })
            streams.set(id, { sink, name: basename(file) })
            // Ended, failed or cancelled before the browser asked: the URL answers 404 from then on.
            sink.once('close', () => streams.delete(id))
            // Nothing is written at `file`: its folder, made when the path was chosen, is not
            // kept. A sidecar asked for makes it again and goes with it (discard).
            const dir = dirname(file)
            if (inside(dir)) {
              try {
                rmdirSync(dir)
              } catch {
                // Not empty (something was put there on purpose): it goes when its files are sent.
              }
            }
            return { download: { url: `/downloads/${id}`, name: basename(file) }, sink }
          }
        })
  }

  return {
    root,
    dialogs,
    take(id) {
      const entry = offered.get(id) ?? null
      offered.delete(id)
      return entry
    },
    takeStream(id) {
      const stream = streams.get(id) ?? null
      streams.delete(id)
      return stream !== null && !stream.sink.destroyed && !stream.sink.attached ? stream : null
    },
    putBack(id, entry) {
      offered.set(id, entry)
    },
    discard(entry) {
      // A CSV and its .meta.json sidecar share the folder and go in either order: the folder
      // goes with the last of them.
      if (!inside(entry.file)) return
      rmSync(entry.file, { force: true })
      const dir = dirname(entry.file)
      if (inside(dir) && readdirSync(dir).length === 0) rmSync(dir, { recursive: true, force: true })
    },
    close() {
      offered.clear()
      for (const { sink } of streams.values()) sink.destroy()
      streams.clear()
      rmSync(root, { recursive: true, force: true })
    }
  }
}
