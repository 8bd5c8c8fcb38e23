import { isCallsightError, toErrorInfo } from '../core/errors'
import { version } from '../../package.json'
import { EXIT, EXIT_HELP, exitCodeFor } from './exit-codes'
import { COMMAND_HELP } from './help'
import { processIo, type Io } from './output'
import type { CliParts } from './parts'
import { terminalLine } from './terminal-text'

const HELP = `callsight <command> [options]
callsight --version

Commands:
  sync            sync calls from the service into a cache file
  search          search the cache file offline
  remote-search   one page straight from the service
  export          write calls from the cache to CSV, XLSX, JSON or NDJSON
  types           the cache's call type catalog: list it, or import the tenant's (JSON, CSV)
  annotations     back up or hand over review annotations (export|import, JSON or CSV)
  team            set up the team cache on PostgreSQL (init), or show it (status)
  worker          keep scopes fresh in the team cache, on a schedule
  pull            fill a local cache file from the team cache
  status          a cache file's freshness: last pull, its change, the team cache's newest
  serve           the app in a browser tab (127.0.0.1 only), for where Electron cannot run

Run callsight <command> --help for its options. The password is read from
CALLSIGHT_PASSWORD or asked for on the terminal; it is never a flag. Tokens live in
memory for one run and are never written to disk.

${EXIT_HELP}`

type Command = (argv: string[], io: Io, signal: AbortSignal, parts: CliParts) => Promise<number>
/**
 * Each command's code is loaded when that command runs: loaded up front, every command's
 * dependencies (PostgreSQL's client, the service client, the cache, zod's schemas) cost
 * every start-up, `--help` included (bench/cli-startup.ts). A command's --help loads none of
 * its code either: the texts live in help.ts.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  sync: async () => (await import('./commands/sync')).syncCommand,
  search: async () => (await import('./commands/search')).searchCommand,
  'remote-search': async () => (await import('./commands/remote-search')).remoteSearchCommand,
  export: async () => (await import('./commands/export')).exportCommand,
  types: async () => (await import('./commands/types')).typesCommand,
  annotations: async () => (await import('./commands/annotations')).annotationsCommand,
  serve: async () => (await import('./commands/serve')).serveCommand,
  team: async () => (await import('./commands/team')).teamCommand,
  worker: async () => (await import('./commands/worker')).workerCommand,
  pull: async () => (await import('./commands/pull')).pullCommand,
  status: async () => (await import('./commands/status')).statusCommand
}

/** `parts`: what commands are built from, when another entry point supplies it (parts.ts). */
export async function main(argv: string[], io: Io = processIo(), parts: CliParts = {}): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(`${HELP}\n`)
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  if (name === '--version' || name === '-V') {
    io.out(`callsight ${version}\n`)
    return EXIT.ok
  }
  const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined
  if (!load) {
    io.err(`callsight: unknown command "${terminalLine(name)}". Commands: ${Object.keys(COMMANDS).join(', ')}. Try --help.\n`)
    return EXIT.usage
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`${COMMAND_HELP[name]}\n\n${EXIT_HELP}\n`)
    return EXIT.ok
  }
  let command: Command
  try {
    command = await load()
  } catch (e) {
    // Its code could not be loaded (a native module missing, say): said as any failure is.
    return failed(name, e, io)
  }
  // Ctrl-C cancels the work cleanly (a sync keeps its checkpoint); a second one exits at once.
  const ac = new AbortController()
  const onSigint = (): void => {
    if (ac.signal.aborted) process.exit(EXIT.cancelled)
    io.err('\nCancelling…\n')
    ac.abort()
  }
  process.on('SIGINT', onSigint)
  try {
    return await command(rest, io, ac.signal, parts)
  } catch (e) {
    return failed(name, e, io)
  } finally {
    process.off('SIGINT', onSigint)
  }
}

/** Prints a command's failure on stderr; its exit code. */
function failed(name: string, e: unknown, io: Io): number {
  const info = toErrorInfo(e)
  // Messages can carry the service's own words (a validation message, a redirect target).
  const message = terminalLine(info.message)
  if (!isCallsightError(e) && info.code === 'Internal') io.err(`callsight ${name}: ${message}\n`)
  else io.err(`callsight ${name}: ${message}${info.hint ? `\n${terminalLine(info.hint)}` : ''}\n`)
  return exitCodeFor(info.code)
}

// The bundle is the program; importing it from tests does not run it.
const invokedDirectly = process.argv[1] !== undefined && /cli\.(mjs|js|ts)$/.test(process.argv[1])
if (invokedDirectly) {
  void main(process.argv.slice(2)).then(async (code) => {
    // Every command has closed what it opened when main returns (caches, pools, servers), but
    // fetch keeps idle connections to the service open for seconds: a finished sync would sit
    // there as long before the prompt came back. Output to a pipe is written asynchronously,
    // so both streams are drained first: a piped --json is never cut short.
    const drained = (s: NodeJS.WriteStream): Promise<void> => new Promise((r) => s.write('', () => r()))
    await Promise.all([drained(process.stdout), drained(process.stderr)])
    process.exit(code)
  })
}
