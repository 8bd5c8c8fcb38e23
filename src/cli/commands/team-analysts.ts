import { addAnalyst, listAnalysts, removeAnalyst } from '../../core/team'
import { parseFlags, required } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { readSecret } from '../password'
import { openTeamPool, TEAM_DB_FLAGS, teamDbOptions } from '../team-db'
import { jsonLine, terminalLine } from '../terminal-text'

/**
 * `team add-analyst NAME [--lead]`, `team remove-analyst NAME`, `team list-analysts`: one
 * login role per analyst (src/core/team/analysts.ts), run as the database owner. The new
 * role's password is read as `team init` reads passwords: CALLSIGHT_ANALYST_PASSWORD or a
 * hidden prompt, never a flag.
 */
export async function analystCommand(sub: 'add-analyst' | 'remove-analyst' | 'list-analysts', argv: string[], io: Io): Promise<number> {
  const { values, positionals } = parseFlags(
    argv,
    { db: { type: 'string' }, lead: { type: 'boolean', default: false }, json: { type: 'boolean', default: false }, ...TEAM_DB_FLAGS },
    true
  )
  const opts = teamDbOptions(required(values.db, '--db'), values)
  const name = sub === 'list-analysts' ? '' : required(positionals[0], 'NAME')
  const pool = openTeamPool(opts, 1)
  try {
    if (sub === 'add-analyst') {
      const password = await readSecret('CALLSIGHT_ANALYST_PASSWORD', `Password for analyst ${name}: `)
      const r = await addAnalyst(pool, opts.schema, name, password, values.lead === true)
      io.out(`${r.created ? 'Created' : 'Updated'} ${values.lead ? 'lead' : 'analyst'} ${terminalLine(name)} in "${opts.schema}".\n`)
      return EXIT.ok
    }
    if (sub === 'remove-analyst') {
      const r = await removeAnalyst(pool, opts.schema, name)
      io.out(`Removed ${terminalLine(name)}: ${r.sessionsEnded} session(s) ended; the review rows it wrote stay, with its name.\n`)
      for (const w of r.warnings) io.err(`Warning: ${terminalLine(w)}\n`)
      return EXIT.ok
    }
    const list = await listAnalysts(pool, opts.schema)
    if (values.json) io.out(`${jsonLine(list)}\n`)
    else if (list.length === 0) io.out(`No analysts in "${opts.schema}".\n`)
    else for (const a of list) io.out(`${terminalLine(a.name)}\t${a.lead ? 'lead' : 'analyst'}${a.canLogin ? '' : '\t(cannot log in)'}\n`)
    return EXIT.ok
  } finally {
    await pool.end()
  }
}
