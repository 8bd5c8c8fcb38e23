import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { startService, type RunningService, type ServiceOptions } from '../../../src/reference-service'
import { buildCli, removeBuild } from './build-cli'

export interface Ran {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

export function spawnCli(cli: string, args: string[], env: Record<string, string> = {}): { child: ChildProcess; done: Promise<Ran> } {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, CALLSIGHT_PASSWORD: 'demo', ...env },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()))
  const done = new Promise<Ran>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })))
  return { child, done }
}

export const runCli = (cli: string, args: string[], env?: Record<string, string>): Promise<Ran> => spawnCli(cli, args, env).done

export interface CliSetUp {
  /** The built CLI bundle. */
  readonly cli: string
  readonly service: RunningService
  /** A temporary directory for the file's databases, removed after its tests. */
  readonly dir: string
}

/**
 * Before the file's tests: builds the CLI, starts the reference service on 127.0.0.1 (port 0,
 * quiet) with `opts` and makes a temporary directory; after them, stops and removes all
 * three. The fields are filled once the file's first beforeAll has run.
 */
export function useCliAndService(opts: ServiceOptions, dirPrefix: string): CliSetUp {
  const set: { cli: string; service: RunningService | undefined; dir: string } = { cli: '', service: undefined, dir: '' }
  beforeAll(async () => {
    set.cli = await buildCli()
    set.service = await startService({ port: 0, quiet: true, ...opts })
    set.dir = mkdtempSync(join(tmpdir(), dirPrefix))
  }, 120_000)
  afterAll(async () => {
    await set.service?.stop()
    if (set.dir) rmSync(set.dir, { recursive: true, force: true })
    removeBuild(set.cli)
  })
  return {
    get cli() {
      return set.cli
    },
    get service() {
      if (!set.service) throw new Error('the reference service is started in beforeAll')
      return set.service
    },
    get dir() {
      return set.dir
    }
  }
}

/** `callsight sync` of [from, to) in Europe/Istanbul, every result, with analysis. */
export function syncArgs(o: { server: string; db: string; from: string; to: string; rateLimit: string }, ...extra: string[]): string[] {
  return [
    'sync',
    '--server',
    o.server,
    '--user',
    'demo',
    '--db',
    o.db,
    '--from',
    o.from,
    '--to',
    o.to,
    '--results',
    'all',
    '--zone',
    'Europe/Istanbul',
    '--analysis',
    '--rate-limit',
    o.rateLimit,
    ...extra
  ]
}
