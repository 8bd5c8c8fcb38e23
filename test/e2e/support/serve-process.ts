import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'

/**
 * `callsight serve` started as a user starts it: the built CLI (out/node/cli.mjs, from
 * `npm run build`) as a child process, --no-open, a fresh data folder, the address read from
 * the first line of its stdout. Builds nothing. Its stdin is the test's: Enter asks for a new
 * address, as a user does once the first one is spent.
 */

export const CLI = resolve(process.env['CALLSIGHT_CLI'] ?? 'out/node/cli.mjs')

export interface ServeOptions {
  /** More arguments after `serve --no-open --data-dir DIR`, e.g. ['--demo']. */
  args?: string[]
  /** Let serve open the browser itself (no --no-open): for a test's stand-in opener. */
  open?: boolean
  /** Over the test's environment. TZ defaults to Europe/Istanbul, the browser's zone in the tests. */
  env?: Record<string, string>
  /** An existing data folder (kept); default a fresh temporary one (removed on stop). */
  dataDir?: string
  /** Another built CLI than CLI (a bench's build of the code before a change, to compare in one run). */
  cli?: string
}

export interface ServeProcess {
  readonly child: ChildProcess
  /** The first stdout line: the address with the first launch key (single-use). */
  readonly launchUrl: string
  /** http://127.0.0.1:<port> */
  readonly origin: string
  readonly port: number
  readonly launchKey: string
  readonly dataDir: string
  readonly logFile: string
  /** Presses Enter in serve's terminal and resolves to the new address it prints. */
  newLaunchUrl(): Promise<string>
  /** Everything written so far. */
  stdout(): string
  stderr(): string
  log(): string
  /** Ctrl-C, and the exit code once it ended (SIGKILL after 20 s). */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

export async function startServeProcess(opts: ServeOptions = {}): Promise<ServeProcess> {
  const cli = opts.cli ?? CLI
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` first.`)
  const ownDir = opts.dataDir === undefined
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'callsight-serve-e2e-'))
  const flags = [...(opts.open ? [] : ['--no-open']), '--data-dir', dataDir, ...(opts.args ?? [])]
  const child = spawn(process.execPath, [cli, 'serve', ...flags], {
    env: { ...process.env, TZ: 'Europe/Istanbul', ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let out = ''
  let err = ''
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d))
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))

  const lines = createInterface({ input: child.stdout! })
  const firstLine = new Promise<string>((resolveLine, reject) => {
    const timer = setTimeout(() => reject(new Error(`callsight serve printed no address within 60 s:\n${err}`)), 60_000)
    lines.once('line', (line) => {
      clearTimeout(timer)
      resolveLine(line)
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`callsight serve exited (${code}) before printing an address:\n${err}`))
    })
  })
  const waiting: Array<(line: string) => void> = []
  lines.on('line', (line) => {
    out += `${line}\n`
    waiting.shift()?.(line)
  })
  const newLaunchUrl = (): Promise<string> =>
    new Promise((resolveLine, reject) => {
      const timer = setTimeout(() => reject(new Error('callsight serve printed no new address within 10 s')), 10_000)
      waiting.push((line) => {
        clearTimeout(timer)
        resolveLine(line)
      })
      child.stdin!.write('\n')
    })

  const stop = async (signal: NodeJS.Signals = 'SIGINT'): Promise<number | null> => {
    child.stdin?.end()
    if (child.exitCode === null && child.signalCode === null) child.kill(signal)
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000)
    const code = await exited
    clearTimeout(timer)
    if (ownDir) rmSync(dataDir, { recursive: true, force: true })
    return code
  }

  let launchUrl: string
  try {
    launchUrl = await firstLine
  } catch (e) {
    await stop('SIGKILL')
    throw e
  }
  const url = new URL(launchUrl)
  const logFile = join(dataDir, 'logs', 'serve.log')
  return {
    child,
    launchUrl,
    origin: url.origin,
    port: Number(url.port),
    launchKey: url.searchParams.get('key') ?? '',
    dataDir,
    logFile,
    newLaunchUrl,
    stdout: () => out,
    stderr: () => err,
    log: () => (existsSync(logFile) ? readFileSync(logFile, 'utf8') : ''),
    stop
  }
}
