import { CallsightError } from '../../core/errors'
import { lastChange, PG_SCHEMA_VERSION, readWorkerState, resetGeneration, RoleName, schemaVersion, teamInit } from '../../core/team'
import { q } from '../../core/team/connection'
import { check, parseFlags, required } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'
import { readSecret } from '../password'
import { openTeamPool, TEAM_DB_FLAGS, teamDbOptions } from '../team-db'

export async function teamCommand(argv: string[], io: Io): Promise<number> {
  const [sub, ...rest] = argv
  if (sub === 'init') return init(rest, io)
  if (sub === 'status') return status(rest, io)
  if (sub === 'reset') return reset(rest, io)
  throw new CallsightError('InvalidInput', `callsight team: say init, status or reset${sub ? ` (not "${sub}")` : ''}.`)
}

/** Bumps the team cache's generation (owner): every workstation pulls everything again. */
async function reset(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, { db: { type: 'string' }, ...TEAM_DB_FLAGS })
  const opts = teamDbOptions(required(values.db, '--db'), values)
  const pool = openTeamPool(opts, 1)
  try {
    if ((await schemaVersion(pool, opts.schema)) === 0)
      throw new CallsightError('Storage', `The team cache schema "${opts.schema}" is not set up.`, {
        hint: 'Run callsight team init first.'
      })
    const generation = await resetGeneration(pool, opts.schema)
    io.out(`Team cache "${opts.schema}" reset (generation ${generation}): every workstation's next pull starts over.\n`)
    return EXIT.ok
  } finally {
    await pool.end()
  }
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

async function status(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, { db: { type: 'string' }, json: { type: 'boolean', default: false }, ...TEAM_DB_FLAGS })
  const opts = teamDbOptions(required(values.db, '--db'), values)
  const pool = openTeamPool(opts, 1)
  try {
    const version = await schemaVersion(pool, opts.schema).catch(() => 0)
    if (version === 0)
      throw new CallsightError('Storage', `The team cache schema "${opts.schema}" is not set up.`, {
        hint: 'Run callsight team init first.'
      })
    const workers = await readWorkerState(pool, opts.schema)
    const calls = Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(opts.schema)}.calls`)).rows[0]?.n ?? 0)
    const seq = await lastChange(pool, opts.schema)
    if (values.json) {
      io.out(
        `${jsonLine({ schema: opts.schema, schemaVersion: version, supported: PG_SCHEMA_VERSION, calls, lastChange: seq, scopes: workers })}\n`
      )
      return EXIT.ok
    }
    io.out(`Team cache "${opts.schema}" (schema version ${version}): ${calls} calls, last change number ${seq}.\n`)
    if (workers.length === 0) io.out('No worker has reported yet.\n')
    const when = (ms: number | null): string => (ms === null ? 'never' : new Date(ms).toISOString())
    for (const w of workers) {
      const state = {
        running: `running since ${when(w.run_started_at)}`,
        interrupted: `interrupted: the worker stopped during the run started ${when(w.run_started_at)} (killed?); its next run continues it`,
        stale: `stale: running since ${when(w.run_started_at)}, no heartbeat for ${Math.round((w.heartbeat_age_ms ?? 0) / 1000)} s (hung or unreachable?)`,
        idle: `idle, last run ${w.last_outcome ?? 'none'}`
      }[w.status]
      // Names and messages come from the database: shown, never obeyed, by the terminal.
      io.out(
        `- ${terminalLine(w.name)}: ${state}; last success ${when(w.last_success_at)}; next ${when(w.next_run_at)} (${terminalLine(w.worker)})\n`
      )
      if (w.last_error_code) io.out(`    last error ${terminalLine(w.last_error_code)}: ${terminalLine(w.last_error_message ?? '')}\n`)
    }
    return EXIT.ok
  } finally {
    await pool.end()
  }
}
