import { readFileSync } from 'node:fs'
import pg from 'pg'
import { z } from 'zod'
import { isSecretParam, passwordInUrl } from '../../shared/team'
import { CallsightError } from '../errors'
import { GuardedClient, type GuardedClientConfig } from './pg-client'

/**
 * How to reach the team cache: a PostgreSQL connection string, the tenant's schema, and
 * optionally a password given apart from the string (the app keeps it encrypted; the CLI
 * reads PGPASSWORD or ~/.pgpass through node-postgres, never a flag).
 */
export interface TeamDbOptions {
  /** postgres://user@host:port/database?sslmode=verify-full&sslrootcert=/path/ca.pem */
  url: string
  /** The tenant's schema: one per tenant in one database. */
  schema: string
  password?: string
  /** Overrides sslmode / sslrootcert of the string. */
  sslMode?: SslMode
  sslRootCert?: string
  /** Connections in the pool; the worker and a pull need few. */
  maxConnections?: number
  applicationName?: string
  /**
   * node-postgres's pipeline mode: queries on one connection are sent without waiting for the
   * answers before them (the store's write transactions). It refuses cursors and streams.
   */
  pipeline?: boolean
}

export const SSL_MODES = ['disable', 'require', 'verify-ca', 'verify-full'] as const
export const SslMode = z.enum(SSL_MODES)
export type SslMode = z.infer<typeof SslMode>

/** Lower case, digits and underscores, starting with a letter: safe to quote into DDL. */
export const SchemaName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,47}$/, 'a schema name is lower-case letters, digits and _ (starting with a letter, at most 48)')
export const RoleName = z
  .string()
  .regex(/^[a-z][a-z0-9_]{0,62}$/, 'a role name is lower-case letters, digits and _ (starting with a letter)')

export { passwordInUrl }

/**
 * A connection string with its password (if any) replaced, for logs, messages and what is
 * stored (team_source.source, settings): the userinfo password and every query parameter
 * that can carry a secret.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url.trim())
    if (u.password) u.password = '***'
    for (const key of [...u.searchParams.keys()]) if (isSecretParam(key)) u.searchParams.set(key, '***')
    return u.toString()
  } catch {
    return 'postgres://(unreadable connection string)'
  }
}

export function isPostgresUrl(text: string): boolean {
  return /^postgres(ql)?:\/\//i.test(text.trim())
}

/**
 * node-postgres settings from our options. TLS follows libpq's sslmode words: `require`
 * encrypts without checking the certificate, `verify-ca` checks it against the CA file,
 * `verify-full` checks the CA and the host name. `prefer`/`allow` (libpq's silent fallback
 * to plain text) are refused: say `disable` or `require` on purpose.
 */
export function poolConfig(opts: TeamDbOptions): pg.PoolConfig {
  let u: URL
  try {
    u = new URL(opts.url.trim())
  } catch {
    throw new CallsightError('InvalidInput', 'The team cache address is not a connection string.', {
      hint: 'Write it as postgres://USER@HOST:PORT/DATABASE (the password apart, in PGPASSWORD).'
    })
  }
  if (!/^postgres(ql)?:$/.test(u.protocol)) {
    throw new CallsightError('InvalidInput', 'The team cache address must start with postgres://.')
  }
  SchemaName.parse(opts.schema)
  const params = u.searchParams
  const rawMode = opts.sslMode ?? params.get('sslmode') ?? 'disable'
  const mode = SslMode.safeParse(rawMode)
  if (!mode.success) {
    throw new CallsightError('InvalidInput', `sslmode "${rawMode}" is not supported.`, {
      hint: 'Use disable, require, verify-ca or verify-full (prefer and allow fall back to plain text silently).'
    })
  }
  const caFile = opts.sslRootCert ?? params.get('sslrootcert') ?? undefined
  let ssl: pg.PoolConfig['ssl'] = false
  if (mode.data === 'require') ssl = { rejectUnauthorized: false }
  else if (mode.data !== 'disable') {
    // As libpq: the CA file is the only trust. Without one Node would trust its whole public
    // bundle, and any public CA's certificate for any name would pass verify-ca.
    const ca = readCaFile(caFile, mode.data)
    if (mode.data === 'verify-ca') ssl = { ca, rejectUnauthorized: true, checkServerIdentity: () => undefined }
    else ssl = { ca, rejectUnauthorized: true }
  }
  const password = opts.password ?? (u.password ? decodeURIComponent(u.password) : undefined)
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1')
  const cfg: pg.PoolConfig & GuardedClientConfig = {
    // Every connection goes through it: only SCRAM-SHA-256 ever gets the password.
    Client: GuardedClient,
    // SCRAM bound to the TLS channel whenever TLS is on (plain SCRAM when the server does not
    // offer it), and required with verify-full.
    enableChannelBinding: mode.data !== 'disable',
    requireChannelBinding: mode.data === 'verify-full',
    host: host || (params.get('host') ?? undefined),
    port: u.port ? Number(u.port) : 5432,
    database: decodeURIComponent(u.pathname.replace(/^\//, '')) || undefined,
    user: u.username ? decodeURIComponent(u.username) : undefined,
    ssl,
    max: opts.maxConnections ?? 4,
    application_name: opts.applicationName ?? 'callsight',
    connectionTimeoutMillis: 15_000,
    // A dead server must not hang a pull or the worker forever.
    keepAlive: true
  }
  if (opts.pipeline) cfg.pipeline = true
  // Without one, node-postgres reads PGPASSWORD, then ~/.pgpass.
  if (password !== undefined) cfg.password = password
  return cfg
}

function readCaFile(caFile: string | undefined, mode: 'verify-ca' | 'verify-full'): string {
  if (!caFile) {
    throw new CallsightError('InvalidInput', `sslmode ${mode} needs the CA file that signed the server's certificate.`, {
      hint: 'Give it with sslrootcert=/path/ca.pem in the connection string, --ssl-ca, or the account settings.'
    })
  }
  let ca: string
  try {
    ca = readFileSync(caFile, 'utf8')
  } catch (e) {
    throw new CallsightError('InvalidInput', `The CA file ${caFile} could not be read.`, { cause: e })
  }
  // An empty CA list would make Node fall back to its public bundle.
  if (!ca.includes('-----BEGIN CERTIFICATE-----')) {
    throw new CallsightError('InvalidInput', `The CA file ${caFile} holds no PEM certificate.`)
  }
  return ca
}

/** PostgreSQL's error as one of ours, with words a person can act on. */
export function mapPgError(e: unknown, what = 'The team cache'): CallsightError {
  if (e instanceof CallsightError) return e
  const err = e as { code?: string; message?: string } | null
  const code = typeof err?.code === 'string' ? err.code : ''
  if (code === '28P01' || code === '28000') {
    return new CallsightError('InvalidCredentials', `${what} refused the user name or password.`, {
      cause: e,
      hint: 'Check the role and its password (PGPASSWORD, ~/.pgpass or the account settings).'
    })
  }
  if (code === '42501' || code === '25006') {
    return new CallsightError('Forbidden', `${what} refused this: the role is not allowed to do it.`, {
      cause: e,
      hint: 'Analysts connect with the read-only role and can only pull; the worker needs the writer role.'
    })
  }
  if (code === '3D000') return new CallsightError('Storage', `${what}'s database does not exist.`, { cause: e })
  if (code === '3F000' || code === '42P01') {
    return new CallsightError('Storage', `${what} is not set up in this database.`, {
      cause: e,
      hint: 'Run callsight team init --db … --schema … once as the database owner.'
    })
  }
  // The server ended the session (restart, failover, pg_terminate_backend, idle timeout) or
  // the socket closed under a query: the work in hand is lost, a retry continues it.
  const msg = typeof err?.message === 'string' ? err.message : ''
  if ((code.startsWith('57P') && code !== '57P04') || /^Connection terminated|not queryable/.test(msg)) {
    return new CallsightError('Network', `${what}'s server ended the connection.`, {
      cause: e,
      hint: 'It may be restarting. Try again: a pull or sync continues where it stopped.'
    })
  }
  if (['ECONNREFUSED', 'ENOTFOUND', 'ECONNRESET', 'EHOSTUNREACH', 'ETIMEDOUT', 'EPIPE'].includes(code) || code.startsWith('08')) {
    return new CallsightError('Network', `${what} could not be reached.`, {
      cause: e,
      hint: 'Check the host, the port and that PostgreSQL is running.'
    })
  }
  if (/certificate|self.signed|SSL|TLS/i.test(msg)) {
    return new CallsightError('Network', `The TLS connection to ${what.toLowerCase()} failed: ${msg}`, {
      cause: e,
      hint: 'With sslmode verify-ca or verify-full give the CA file (sslrootcert or --ssl-ca).'
    })
  }
  if (/timeout/i.test(msg)) return new CallsightError('Timeout', `${what} did not answer in time.`, { cause: e })
  return new CallsightError('Storage', `${what} failed${code ? ` (PostgreSQL ${code})` : ''}.`, { cause: e })
}

export function createPool(opts: TeamDbOptions): pg.Pool {
  const pool = new pg.Pool(poolConfig(opts))
  // A client that loses its server emits 'error'; an 'error' event no one hears ends the
  // process (the app's main, the CLI). The pool hears its idle clients; a checked-out one
  // (a pull's, a write transaction's) is heard by no one, so each client gets a listener of
  // its own. The loss still reaches the work in hand: its query, or the next one, fails.
  pool.on('error', () => undefined)
  pool.on('connect', (client) => client.on('error', () => undefined))
  return pool
}

/** The schema quoted for SQL; the name was validated by SchemaName. */
export const q = (schema: string): string => `"${SchemaName.parse(schema)}"`
