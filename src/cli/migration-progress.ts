import type { MigrationProgress } from '../core/cache'
import type { Io } from './output'

/**
 * What a CLI command prints on stderr while opening a cache runs a long migration (schema 7
 * rebuilds the whole search index: minutes at 1,000,000 calls, with nothing else to show). A
 * terminal gets one line redrawn; a pipe a line per tenth, so a log says how far it got.
 */
export function migrationProgress(io: Io): (p: MigrationProgress) => void {
  let shownTenth = -1
  return (p) => {
    const pct = p.total > 0 ? Math.min(100, Math.floor((p.done / p.total) * 100)) : 100
    const line = `Updating the cache to schema ${p.version}: rebuilding the search index, ${pct}% (${p.done.toLocaleString('en')} of ${p.total.toLocaleString('en')} steps)`
    const end = p.done >= p.total
    if (io.tty) io.err(`\r\x1b[2K${line}${end ? '\n' : ''}`)
    else if (Math.floor(pct / 10) > shownTenth || end) {
      shownTenth = Math.floor(pct / 10)
      io.err(`${line}\n`)
    }
  }
}
