import { isCallsightError, toErrorInfo } from '../core/errors'
import { remoteSearchCommand, REMOTE_SEARCH_HELP } from './commands/remote-search'
import { searchCommand, SEARCH_HELP } from './commands/search'
import { exportCommand, EXPORT_HELP } from './commands/export'
import { syncCommand, SYNC_HELP } from './commands/sync'
import { pullCommand, PULL_HELP } from './commands/pull'
import { teamCommand, TEAM_HELP } from './commands/team'
import { workerCommand, WORKER_HELP } from './commands/worker'
import { serveCommand, SERVE_HELP } from './commands/serve'
import { typesCommand, TYPES_HELP } from './commands/types'
import { annotationsCommand, ANNOTATIONS_HELP } from './commands/annotations'
import { EXIT, EXIT_HELP, exitCodeFor } from './exit-codes'
import { processIo, type Io } from './output'
import { terminalLine } from './terminal-text'

const HELP = `callsight <command> [options]

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
  serve           the app in a browser tab (127.0.0.1 only), for where Electron cannot run

Run callsight <command> --help for its options. The password is read from
CALLSIGHT_PASSWORD or asked for on the terminal; it is never a flag. Tokens live in
memory for one run and are never written to disk.

${EXIT_HELP}`

type Command = (argv: string[], io: Io, signal: AbortSignal) => Promise<number>
const COMMANDS: Record<string, { run: Command; help: string }> = {
  sync: { run: syncCommand, help: SYNC_HELP },
  search: { run: searchCommand, help: SEARCH_HELP },
  'remote-search': { run: remoteSearchCommand, help: REMOTE_SEARCH_HELP },
  export: { run: exportCommand, help: EXPORT_HELP },
  types: { run: typesCommand, help: TYPES_HELP },
  annotations: { run: annotationsCommand, help: ANNOTATIONS_HELP },
  serve: { run: serveCommand, help: SERVE_HELP },
  team: { run: teamCommand, help: TEAM_HELP },
  worker: { run: workerCommand, help: WORKER_HELP },
  pull: { run: pullCommand, help: PULL_HELP }
}

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.out(`${HELP}\n`)
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  const command = COMMANDS[name]
  if (!command) {
    io.err(`callsight: unknown command "${terminalLine(name)}". Commands: ${Object.keys(COMMANDS).join(', ')}. Try --help.\n`)
    return EXIT.usage
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(`${command.help}\n\n${EXIT_HELP}\n`)
    return EXIT.ok
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
    return await command.run(rest, io, ac.signal)
  } catch (e) {
    const info = toErrorInfo(e)
    // Messages can carry the service's own words (a validation message, a redirect target).
    const message = terminalLine(info.message)
    if (!isCallsightError(e) && info.code === 'Internal') io.err(`callsight ${name}: ${message}\n`)
    else io.err(`callsight ${name}: ${message}${info.hint ? `\n${terminalLine(info.hint)}` : ''}\n`)
    return exitCodeFor(info.code)
  } finally {
    process.off('SIGINT', onSigint)
  }
}

// The bundle is the program; importing it from tests does not run it.
const invokedDirectly = process.argv[1] !== undefined && /cli\.(mjs|js|ts)$/.test(process.argv[1])
if (invokedDirectly) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code
  })
}
