import { readFileSync } from 'node:fs'
import { openCache, parseCallTypeFile } from '../../core/cache'
import { CallsightError } from '../../core/errors'
import { parseFlags, required } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'
import { migrationProgress } from '../migration-progress'

export async function typesCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv
  const { values, positionals } = parseFlags(rest, { db: { type: 'string' }, json: { type: 'boolean', default: false } }, true)
  const db = required(values.db, '--db')
  if (sub === 'list') {
    const cache = openCache(db, { readonly: true })
    try {
      const types = cache.callTypeEntries()
      if (values.json) io.out(`${jsonLine({ types })}\n`)
      else {
        for (const t of types) io.out(`${terminalLine(t.value)}\t${terminalLine(t.description)}\t${t.source}\n`)
        io.out(`${types.length} call type(s).\n`)
      }
      return EXIT.ok
    } finally {
      cache.close()
    }
  }
  if (sub === 'import') {
    const file = positionals[0]
    if (file === undefined || positionals.length > 1)
      throw new CallsightError('InvalidInput', 'types import: name one catalog file (JSON or CSV).')
    let text: string
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      throw new CallsightError('InvalidInput', `types import: cannot read ${file}.`)
    }
    const list = parseCallTypeFile(text, file)
    const cache = openCache(db, { onMigrationProgress: migrationProgress(io) })
    try {
      const r = cache.importCallTypes(list, 'import')
      io.out(
        `${r.added} added, ${r.updated} updated, ${r.merged} learnt name(s) filed under their entry; ${cache.callTypes().length} call type(s) in the catalog.\n`
      )
      return EXIT.ok
    } finally {
      cache.close()
    }
  }
  throw new CallsightError('InvalidInput', `types: expected list or import, not "${sub ?? ''}".`)
}
