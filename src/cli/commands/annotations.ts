import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { openCache } from '../../core/cache'
import { CallsightError } from '../../core/errors'
import { writeAtomically } from '../../core/export/atomic-file'
import { importAnnotations, parseAnnotations } from '../../core/review/import'
import { exportAnnotations, TransferFormat } from '../../core/review/transfer'
import { check, parseFlags, required } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'
import { migrationProgress } from '../migration-progress'
import { shareCommand } from './annotations-share'

export async function annotationsCommand(argv: string[], io: Io): Promise<number> {
  const [action, ...rest] = argv
  if (action === 'push' || action === 'pull') return shareCommand(action, rest, io)
  if (action !== 'export' && action !== 'import') {
    throw new CallsightError(
      'InvalidInput',
      'Say what to do: callsight annotations export|import --db FILE --format json|csv, or push|pull --db FILE --team URL.'
    )
  }
  const { values } = parseFlags(rest, {
    db: { type: 'string' },
    format: { type: 'string' },
    out: { type: 'string' },
    in: { type: 'string' },
    json: { type: 'boolean', default: false }
  })
  const format = check(TransferFormat, required(values.format, '--format'), '--format')
  const db = required(values.db, '--db')

  if (action === 'export') {
    const out = resolve(required(values.out, '--out'))
    const cache = openCache(db, { readonly: true })
    try {
      const { text, count } = exportAnnotations(cache, format, Date.now())
      await writeAtomically(out, async (stream) => {
        stream.write(text)
      })
      io.out(`Wrote ${count} annotation(s) to ${terminalLine(out)}\n`)
      return EXIT.ok
    } finally {
      cache.close()
    }
  }

  const file = resolve(required(values.in, '--in'))
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (e) {
    throw new CallsightError('InvalidInput', `The file could not be read (${file}).`, { cause: e })
  }
  const incoming = parseAnnotations(text, format)
  const cache = openCache(db, { onMigrationProgress: migrationProgress(io) })
  try {
    const report = importAnnotations(cache, incoming, Date.now())
    if (values.json) io.out(`${jsonLine(report)}\n`)
    else {
      io.out(
        `Imported: ${report.added} new, ${report.updated} updated, ${report.unchanged} unchanged; ${report.conflicts.length} conflict(s); ${report.refused.length} refused.\n`
      )
      for (const c of report.conflicts)
        io.out(`  conflict ${terminalLine(c.callId)} ${c.field}: kept ${c.kept === 'local' ? 'this cache' : 'the file'}'s (later) value\n`)
    }
    // Refused entries go to stderr, each with its line, so nothing is left out unsaid.
    for (const r of report.refused)
      io.err(
        `callsight annotations: line ${r.line}${r.callId === null ? '' : ` (${terminalLine(r.callId)})`}${r.part === 'score' ? ': the score' : ''} not imported: ${terminalLine(r.reason)}\n`
      )
    return report.refused.length > 0 ? EXIT.validation : EXIT.ok
  } finally {
    cache.close()
  }
}
