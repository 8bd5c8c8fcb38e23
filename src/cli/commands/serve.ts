import { resolve } from 'node:path'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { defaultDataDir } from '../../web/data-dir'
import { hasDisplay } from '../../web/open-browser'
import { parseFlags, parseIntFlag } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'

export async function serveCommand(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values } = parseFlags(argv, {
    port: { type: 'string' },
    'data-dir': { type: 'string' },
    demo: { type: 'boolean', default: false },
    'no-open': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false }
  })
  const port = parseIntFlag(values.port, '--port', 0, 65_535) ?? 0
  const dataDir = resolve(values['data-dir'] ?? defaultDataDir())
  // Loaded on use: the controller, the demo service and the web server would slow every
  // other command's start by about a second.
  const { locateApp, startServe } = await import('../../web/serve')
  const app = locateApp(fileURLToPath(new URL('.', import.meta.url)))

  // Ctrl-C arrives as the abort signal (the CLI's handler); a service manager or `npm start`
  // sends SIGTERM. Another SIGTERM while closing is ignored: the close is under way.
  let stop: () => void = () => undefined
  const stopping = new Promise<void>((r) => (stop = r))
  process.on('SIGTERM', stop)
  signal.addEventListener('abort', stop, { once: true })
  if (signal.aborted) stop()
  try {
    const running = await startServe({
      dataDir,
      port,
      // For development builds kept elsewhere (the end-to-end tests use it too).
      rendererDir: process.env['CALLSIGHT_RENDERER_DIR'] ?? app.rendererDir,
      demo: values.demo,
      appVersion: app.version,
      verbose: values.verbose
    })
    // Each Enter on stdin prints a new address (the earlier key stops working) and opens it
    // where serve opens the browser: the way back in after the tab was closed or the key ran out.
    // Not from a terminal serve is in the background of (`callsight serve &`): reading it there
    // would get the whole process stopped by SIGTTIN.
    const listening = mayReadStdin()
    const enter = listening ? createInterface({ input: process.stdin, terminal: false }) : null
    try {
      const openHere = !values['no-open'] && hasDisplay()
      const launch = async (): Promise<boolean> => {
        const url = running.issueLaunchUrl()
        // An address alone on its line; line one is the first: scripts and `npm start` read it.
        io.out(`${url}\n`)
        return openHere && (await running.openInBrowser(url))
      }
      const opened = await launch()
      io.err(
        `Callsight is running at ${running.origin} — ${opened ? 'opened in your browser' : 'open the address above in a browser on this computer'}.\n` +
          `The address works once, for 2 minutes; ${listening ? 'press Enter here for a new one' : 'restart serve in the foreground for a new one'}.\n` +
          `Data: ${dataDir}${values.demo ? ' (signed in to the demo)' : ''}. Log: ${running.logFile}. Stop with Ctrl-C.\n`
      )
      enter?.on('line', () => {
        launch().catch((e: unknown) => io.err(`No new address: ${e instanceof Error ? e.message : String(e)}\n`))
      })
      await stopping
    } finally {
      enter?.close()
      await running.close()
    }
  } finally {
    process.off('SIGTERM', stop)
  }
  io.err('Callsight stopped.\n')
  return EXIT.ok
}

/**
 * Whether serve may read Enter from stdin: a pipe or a file, or a terminal whose foreground
 * process group is ours (as /proc or ps tell; no job control on Windows). Read from the
 * background, a terminal stops the whole process.
 */
export function mayReadStdin(): boolean {
  if (!process.stdin.isTTY || process.platform === 'win32') return true
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8')
    // After "pid (comm)": state ppid pgrp session tty_nr tpgid …
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[2] !== undefined && fields[2] === fields[5]
  } catch {
    try {
      const [pgid, tpgid] = execFileSync('ps', ['-o', 'pgid=,tpgid=', '-p', String(process.pid)], { encoding: 'utf8', timeout: 5_000 })
        .trim()
        .split(/\s+/)
      return pgid !== undefined && pgid === tpgid
    } catch {
      return false
    }
  }
}
