import { appendFileSync, renameSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger, LogLevel } from '../../core/platform'
import { makePrivateDir, PRIVATE_FILE_MODE, tightenFile } from '../../core/platform/private-files'
import { redact, redactText } from '../../core/logging/redact'

export interface FileLoggerOptions {
  dir: string
  /** The file's name without .log: `main` for the desktop app, `serve` for the browser mode. */
  name?: string
  /** Lines below this level are not written. */
  level?: LogLevel
  /** The file rolls over to <name>.old.log past this size. */
  maxBytes?: number
  now?: () => number
  /** Also echo to stderr (development). */
  echo?: boolean
}

const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 }

/**
 * One JSON line per entry in <dir>/<name>.log, redacted before it is written. Appends are
 * synchronous so the last lines before a crash are on disk; the volume is a few lines per
 * user action, not per record.
 */
export function createFileLogger(opts: FileLoggerOptions): Logger & { readonly file: string } {
  const name = opts.name ?? 'main'
  const file = join(opts.dir, `${name}.log`)
  const min = ORDER[opts.level ?? 'info']
  const maxBytes = opts.maxBytes ?? 5 * 1024 * 1024
  const now = opts.now ?? Date.now
  // The app's own log folder; a log an older version wrote world-readable is tightened.
  makePrivateDir(opts.dir)
  tightenFile(file)
  tightenFile(join(opts.dir, `${name}.old.log`))
  let size = sizeOf(file)

  return {
    file,
    log(level, message, fields) {
      if (ORDER[level] < min) return
      const entry: Record<string, unknown> = { t: new Date(now()).toISOString(), level, msg: redactText(message) }
      if (fields !== undefined) entry['fields'] = redact(fields)
      const line = `${JSON.stringify(entry)}\n`
      try {
        if (size + line.length > maxBytes) {
          renameSync(file, join(opts.dir, `${name}.old.log`))
          size = 0
        }
        appendFileSync(file, line, { mode: PRIVATE_FILE_MODE })
        size += Buffer.byteLength(line)
      } catch {
        // A full disk must not take the app down with it; the entry is lost.
      }
      if (opts.echo) process.stderr.write(line)
    }
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}
