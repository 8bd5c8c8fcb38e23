import { CallsightError } from '../../core/errors'
import { resetGeneration, RoleName, teamInit } from '../../core/team'
import { check, parseFlags, required } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { terminalLine } from '../terminal-text'
import { teamStatus } from './team-status'
import { analystCommand } from './team-analysts'
import { teamSearchSwitch } from './team-search-switch'
import { readSecret } from '../password'
import { openTeamPool, TEAM_DB_FLAGS, teamDbOptions, withTeamSchema } from '../team-db'

export async function teamCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv
  if (sub === 'init') return init(rest, io)
  if (sub === 'status') return teamStatus(rest, io)
  if (sub === 'reset') return reset(rest, io)
  if (sub === 'search') return teamSearchSwitch(rest, io)
  if (sub === 'add-analyst' || sub === 'remove-analyst' || sub === 'list-analysts') return analystCommand(sub, rest, io)
  throw new CallsightError(
    'InvalidInput',
    `callsight team: say init, status, reset, search, add-analyst, remove-analyst or list-analysts${sub ? ` (not "${sub}")` : ''}.`
  )
}

/** Bumps the team cache's generation (owner): every workstation pulls everything again. */
async function reset(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, { db: { type: 'string' }, ...TEAM_DB_FLAGS })
  const opts = teamDbOptions(required(values.db, '--db'), values)
  return withTeamSchema(opts, async (pool) => {
    const generation = await resetGeneration(pool, opts.schema)
    io.out(`Team cache "${opts.schema}" reset (generation ${generation}): every workstation's next pull starts over.\n`)
    return EXIT.ok
  })
}

async function init(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, { db: { type: 'string' }, writer: { type: 'string' }, reader: { type: 'string' }, ...TEAM_DB_FLAGS })
  const opts = teamDbOptions(required(values.db, '--db'), values)
  const writerRole = check(RoleName, values.writer ?? `${opts.schema}_writer`, '--writer')
  const readerRole = check(RoleName, values.reader ?? `${opts.schema}_reader`, '--reader')
  if (writerRole === readerRole) throw new CallsightError('InvalidInput', '--writer and --reader must be two roles.')
  const pool = openTeamPool(opts, 1)
  try {
    const exists = async (role: string): Promise<boolean> =>
      ((await pool.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount ?? 0) > 0
    // New roles need a password; existing ones keep theirs unless the variable is set.
    const secret = async (role: string, env: string): Promise<string | undefined> =>
      (await exists(role)) && !process.env[env] ? undefined : readSecret(env, `Password for the new role ${role}: `)
    const writerPassword = await secret(writerRole, 'CALLSIGHT_WRITER_PASSWORD')
    const readerPassword = await secret(readerRole, 'CALLSIGHT_READER_PASSWORD')
    const r = await teamInit({ pool, schema: opts.schema, writerRole, readerRole, writerPassword, readerPassword })
    io.out(`Team cache schema "${opts.schema}" at version ${r.schemaVersion}.\n`)
    if (r.restored) io.out('The schema was restored or created anew since the last init: workstations will pull everything again.\n')
    for (const role of r.created) io.out(`Created role ${role}.\n`)
    for (const role of r.updated) io.out(`Set a new password for role ${role}.\n`)
    io.out(`Writer (the worker): ${writerRole}. Read-only (workstations): ${readerRole}.\n`)
    for (const w of r.warnings) io.err(`Warning: ${terminalLine(w)}\n`)
    return EXIT.ok
  } finally {
    await pool.end()
  }
}
