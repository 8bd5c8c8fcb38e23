import { createPool, isPostgresUrl, PgSyncStore, SchemaName, SslMode, type TeamDbOptions } from '../core/team'
import { check } from './args'
import type pg from 'pg'

/** The flags every command that reaches the team cache takes. */
export const TEAM_DB_FLAGS = {
  schema: { type: 'string' },
  'ssl-mode': { type: 'string' },
  'ssl-ca': { type: 'string' }
} as const

export { isPostgresUrl }

export function teamDbOptions(url: string, values: { schema?: string; 'ssl-mode'?: string; 'ssl-ca'?: string }): TeamDbOptions {
  const opts: TeamDbOptions = { url, schema: check(SchemaName, values.schema ?? 'callsight', '--schema'), applicationName: 'callsight-cli' }
  if (values['ssl-mode'] !== undefined) opts.sslMode = check(SslMode, values['ssl-mode'], '--ssl-mode')
  if (values['ssl-ca'] !== undefined) opts.sslRootCert = values['ssl-ca']
  return opts
}

export const openTeamStore = (opts: TeamDbOptions): Promise<PgSyncStore> => PgSyncStore.open(opts)
export const openTeamPool = (opts: TeamDbOptions, max = 2): pg.Pool => createPool({ ...opts, maxConnections: max })
