/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` in a temporary folder,
 * started on a free port of 127.0.0.1 with a private unix socket folder, and removed
 * afterwards (also when the process exits early). Tests run as root here, and PostgreSQL
 * refuses to run as root, so the folder is handed to an unprivileged user (`postgres` when
 * Debian's package created it, else `nobody`) and the server runs as that user.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'

export const PG_SUPERUSER = 'cs_admin'
export const PG_SUPERUSER_PASSWORD = 'admin-secret-for-tests'

export interface PgCluster {
  /** Base connection string of the superuser (password included): tests only. */
  url: string
  port: number
  host: '127.0.0.1'
  dir: string
  /** A connection string for `database` as `user`/`password` (superuser by default). */
  urlFor(opts?: { user?: string; password?: string; database?: string; params?: string }): string
  /**
   * The same connection string without the password, and the password apart: what the CLI
   * and the worker take (the password in PGPASSWORD, never on the command line).
   */
  credentialsFor(opts?: { user?: string; password?: string; database?: string; params?: string }): {
    url: string
    password: string | undefined
  }
  /** Runs SQL as the superuser on the default database. */
  sql(text: string, values?: unknown[]): Promise<pg.QueryResult>
  /**
   * What `pg_ctl restart -m fast` does: a fast shutdown (sessions ended, the server gone),
   * `downMs` with no server, then the same server started again. Resolves with the moment
   * it accepted connections again (Date.now()).
   */
  restart(downMs: number): Promise<number>
  stop(): Promise<void>
}

/** The folder of PostgreSQL's server binaries, or null when none is installed. */
export function findPgBin(): string | null {
  const fromEnv = process.env['CALLSIGHT_PG_BIN']
  if (fromEnv && existsSync(join(fromEnv, 'initdb'))) return fromEnv
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a))
    for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin')
  }
  const r = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' })
  const dir = r.status === 0 ? r.stdout.trim() : ''
  return dir && existsSync(join(dir, 'initdb')) ? dir : null
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolve(port))
    })
  })
}

/** uid/gid to run the server as: ourselves unless we are root. */
function serverUser(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null
  for (const name of ['postgres', 'nobody']) {
    const r = spawnSync('id', ['-u', name], { encoding: 'utf8' })
    const g = spawnSync('id', ['-g', name], { encoding: 'utf8' })
    if (r.status === 0 && g.status === 0) return { uid: Number(r.stdout.trim()), gid: Number(g.stdout.trim()) }
  }
  throw new Error('Running as root and no unprivileged user (postgres, nobody) to run PostgreSQL as')
}

const live = new Set<{ child: ChildProcess; dir: string }>()
let exitHookInstalled = false
function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const c of live) {
      try {
        c.child.kill('SIGKILL')
      } catch {
        // already gone
      }
      rmSync(c.dir, { recursive: true, force: true })
    }
  })
}

export interface StartPgOptions {
  /** Extra `-c name=value` settings (tests turn fsync off; the benchmark keeps defaults). */
  settings?: Record<string, string>
  /** Lines for postgresql.conf written before start (e.g. ssl files). */
  beforeStart?: (dataDir: string, owner: { uid: number; gid: number } | null) => Record<string, string> | void
  /**
   * A folder kept across runs (a benchmark's loaded database): created and initialised when
   * missing, started as it is otherwise, and left in place by stop().
   */
  keepDir?: string
}

interface ServeOptions {
  bin: string
  dir: string
  data: string
  sock: string
  spawnOpts: { uid?: number; gid?: number }
  settings: Record<string, string>
  keep?: boolean
}

/** Starts `postgres` on a data folder, on a free port of 127.0.0.1, and waits until it takes connections. */
async function serve(o: ServeOptions): Promise<PgCluster> {
  const port = await freePort()
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    port: String(port),
    unix_socket_directories: o.sock,
    max_connections: '60',
    shared_buffers: '128MB',
    ...o.settings
  }
  const args = ['-D', o.data, ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])]
  let log = ''
  const launch = (): ChildProcess => {
    const c = spawn(join(o.bin, 'postgres'), args, { ...o.spawnOpts, cwd: o.dir, stdio: ['ignore', 'ignore', 'pipe'] })
    c.stderr!.on('data', (d: Buffer) => {
      if (log.length < 20_000) log += d.toString()
    })
    return c
  }
  let child = launch()
  const entry = { child, dir: o.dir }
  live.add(entry)
  installExitHook()
  const url = `postgres://${PG_SUPERUSER}:${PG_SUPERUSER_PASSWORD}@127.0.0.1:${port}/postgres`
  const accepting = async (): Promise<void> => {
    const deadline = Date.now() + 30_000
    for (;;) {
      if (child.exitCode !== null) throw new Error(`PostgreSQL exited at start: ${log}`)
      const c = new pg.Client({ connectionString: url })
      try {
        await c.connect()
        await c.end()
        return
      } catch (e) {
        await c.end().catch(() => undefined)
        if (Date.now() > deadline) throw new Error(`PostgreSQL did not accept connections: ${String(e)}\n${log}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    }
  }
  await accepting()
  const admin = new pg.Pool({ connectionString: url, max: 2 })
  // An idle client told "terminating connection" at shutdown must not fail the test file.
  admin.on('error', () => undefined)
  const cluster: PgCluster = {
    url,
    port,
    host: '127.0.0.1',
    dir: o.dir,
    urlFor(u = {}) {
      const { url: bare, password: pw } = cluster.credentialsFor(u)
      return pw === undefined ? bare : bare.replace('@', `:${encodeURIComponent(pw)}@`)
    },
    credentialsFor(u = {}) {
      const user = encodeURIComponent(u.user ?? PG_SUPERUSER)
      const password = u.password ?? (u.user === undefined ? PG_SUPERUSER_PASSWORD : undefined)
      return { url: `postgres://${user}@127.0.0.1:${port}/${u.database ?? 'postgres'}${u.params ? `?${u.params}` : ''}`, password }
    },
    sql: (text, values) => admin.query(text, values),
    async restart(downMs) {
      const exited = new Promise<void>((r) => child.once('exit', () => r()))
      child.kill('SIGINT') // fast shutdown
      await exited
      await new Promise((r) => setTimeout(r, downMs))
      child = launch()
      entry.child = child
      await accepting()
      return Date.now()
    },
    async stop() {
      await admin.end().catch(() => undefined)
      if (child.exitCode === null) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()))
        child.kill('SIGINT') // fast shutdown
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000)
        await exited
        clearTimeout(timer)
      }
      live.delete(entry)
      if (!o.keep) rmSync(o.dir, { recursive: true, force: true })
    }
  }
  return cluster
}

export async function startPgCluster(opts: StartPgOptions = {}): Promise<PgCluster> {
  const bin = findPgBin()
  if (!bin) throw new Error("PostgreSQL server binaries were not found (install Debian's postgresql package)")
  const owner = serverUser()
  const data = opts.keepDir ? join(opts.keepDir, 'data') : ''
  if (opts.keepDir && existsSync(join(data, 'PG_VERSION'))) {
    const spawnOpts = owner ? { uid: owner.uid, gid: owner.gid } : {}
    return serve({ bin, dir: opts.keepDir, data, sock: join(opts.keepDir, 'sock'), spawnOpts, settings: { ...opts.settings }, keep: true })
  }
  if (opts.keepDir) rmSync(opts.keepDir, { recursive: true, force: true })
  const dir = opts.keepDir ?? mkdtempSync(join(tmpdir(), 'callsight-pg-'))
  if (opts.keepDir) mkdirSync(dir, { recursive: true })
  return initAndServe(bin, owner, dir, opts)
}

async function initAndServe(
  bin: string,
  owner: { uid: number; gid: number } | null,
  dir: string,
  opts: StartPgOptions
): Promise<PgCluster> {
  const data = join(dir, 'data')
  const sock = join(dir, 'sock')
  const pwfile = join(dir, 'pw')
  const spawnOpts = owner ? { uid: owner.uid, gid: owner.gid } : {}
  try {
    if (owner) chownSync(dir, owner.uid, owner.gid)
    chmodSync(dir, 0o700)
    writeFileSync(pwfile, `${PG_SUPERUSER_PASSWORD}\n`, { mode: 0o600 })
    if (owner) chownSync(pwfile, owner.uid, owner.gid)
    spawnSync('mkdir', ['-m', '700', sock], { ...spawnOpts })
    const init = spawnSync(
      join(bin, 'initdb'),
      [
        '-D',
        data,
        '-U',
        PG_SUPERUSER,
        '--pwfile',
        pwfile,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '-E',
        'UTF8',
        '--locale=C',
        '--no-sync'
      ],
      { ...spawnOpts, encoding: 'utf8', cwd: dir }
    )
    if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.stdout}`)
    rmSync(pwfile, { force: true })
    const extra = opts.beforeStart?.(data, owner) ?? {}
    return await serve({ bin, dir, data, sock, spawnOpts, settings: { ...opts.settings, ...extra }, keep: opts.keepDir !== undefined })
  } catch (e) {
    for (const c of live) {
      if (c.dir !== dir) continue
      c.child.kill('SIGKILL')
      live.delete(c)
    }
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
}

/**
 * A streaming standby of `primary` (a hot standby: read-only queries while it replays): a
 * `pg_basebackup -R -X stream` of it in a temporary folder, started on another free port with
 * its own socket folder. The primary's defaults allow it (wal_level replica, max_wal_senders
 * 10, and initdb's pg_hba.conf lets 127.0.0.1 replicate with a password). stop() removes it.
 */
export async function startStandby(primary: PgCluster, opts: { settings?: Record<string, string> } = {}): Promise<PgCluster> {
  const bin = findPgBin()
  if (!bin) throw new Error("PostgreSQL server binaries were not found (install Debian's postgresql package)")
  const owner = serverUser()
  const dir = mkdtempSync(join(tmpdir(), 'callsight-pg-standby-'))
  const data = join(dir, 'data')
  const sock = join(dir, 'sock')
  const spawnOpts = owner ? { uid: owner.uid, gid: owner.gid } : {}
  try {
    if (owner) chownSync(dir, owner.uid, owner.gid)
    chmodSync(dir, 0o700)
    spawnSync('mkdir', ['-m', '700', sock], { ...spawnOpts })
    const copy = spawnSync(
      join(bin, 'pg_basebackup'),
      ['-h', '127.0.0.1', '-p', String(primary.port), '-U', PG_SUPERUSER, '-D', data, '-R', '-X', 'stream', '--no-sync'],
      { ...spawnOpts, encoding: 'utf8', cwd: dir, env: { ...process.env, PGPASSWORD: PG_SUPERUSER_PASSWORD }, timeout: 60_000 }
    )
    if (copy.status !== 0) throw new Error(`pg_basebackup failed: ${copy.stderr || copy.stdout}`)
    return await serve({ bin, dir, data, sock, spawnOpts, settings: { hot_standby: 'on', ...opts.settings } })
  } catch (e) {
    for (const c of live) {
      if (c.dir !== dir) continue
      c.child.kill('SIGKILL')
      live.delete(c)
    }
    rmSync(dir, { recursive: true, force: true })
    throw e
  }
}

/** Settings that make a test cluster fast; durability across an OS crash is not under test. */
export const FAST_TEST_SETTINGS: Record<string, string> = { fsync: 'off', full_page_writes: 'off', synchronous_commit: 'off' }
