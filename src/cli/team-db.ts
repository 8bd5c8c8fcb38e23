import { CallsightError } from '../core/errors'
import { createPool, isPostgresUrl, passwordInUrl, PgSyncStore, SchemaName, schemaVersion, SslMode, type TeamDbOptions } from '../core/team'
import { check } from './args'
import type pg from 'pg'

/** The flags every command that reaches the team cache takes. */
export const TEAM_DB_FLAGS = {
  schema: { type: 'string' },
  'ssl-mode': { type: 'string' },
  'ssl-ca': { type: 'string' }
} as const

export { isPostgresUrl }

/**
 * The command line's connection options. A password in the connection string is refused:
 * command lines end up in shell history, in `ps` for every local user, and in process
 * accounting and audit logs.
 */
export function teamDbOptions(url: string, values: { schema?: string; 'ssl-mode'?: string; 'ssl-ca'?: string }): TeamDbOptions {
  const where = passwordInUrl(url)
  if (where !== null) {
    throw new CallsightError(
      'InvalidInput',
      `The connection string holds a password (${where}); Callsight takes none on the command line.`,
      {
        hint: 'Leave it out and set PGPASSWORD, or put it in ~/.pgpass (mode 0600): command lines are kept in shell history and shown by ps.'
      }
    )
  }
  const opts: TeamDbOptions = { url, schema: check(SchemaName, values.schema ?? 'callsight', '--schema'), applicationName: 'callsight-cli' }
  if (values['ssl-mode'] !== undefined) opts.sslMode = check(SslMode, values['ssl-mode'], '--ssl-mode')
  if (values['ssl-ca'] !== undefined) opts.sslRootCert = values['ssl-ca']
  return opts
}

export const openTeamStore = (opts: TeamDbOptions): Promise<PgSyncStore> => PgSyncStore.open(opts)
export const openTeamPool = (opts: TeamDbOptions, max = 2): pg.Pool => createPool({ ...opts, maxConnections: max })

/**
 * Runs `work` on a one-connection pool to the team cache whose schema is set up (its version
 * above 0, as `readVersion` reads it), then ends the pool. A schema not set up is refused with
 * the hint to run `team init`.
 */
export async function withTeamSchema<T>(
  opts: TeamDbOptions,
  work: (pool: pg.Pool, version: number) => Promise<T>,
  readVersion: (pool: pg.Pool, schema: string) => Promise<number> = schemaVersion
): Promise<T> {
  const pool = openTeamPool(opts, 1)
  try {
    const version = await readVersion(pool, opts.schema)
    if (version === 0)
      throw new CallsightError('Storage', `The team cache schema "${opts.schema}" is not set up.`, {
        hint: 'Run callsight team init first.'
      })
    return await work(pool, version)
  } finally {
    await pool.end()
  }
}
