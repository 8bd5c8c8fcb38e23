import { resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { defaultDataDir } from '../../host/web/data-dir'
import { hasDisplay } from '../../host/web/open-browser'
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
  const { locateApp, startServe } = await import('../../host/web/serve')
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
    const enter = createInterface({ input: process.stdin, terminal: false })
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
          'The address works once, for 2 minutes; press Enter here for a new one.\n' +
          `Data: ${dataDir}${values.demo ? ' (signed in to the demo)' : ''}. Log: ${running.logFile}. Stop with Ctrl-C.\n`
      )
      enter.on('line', () => {
        launch().catch((e: unknown) => io.err(`No new address: ${e instanceof Error ? e.message : String(e)}\n`))
      })
      await stopping
    } finally {
      enter.close()
      await running.close()
    }
  } finally {
    process.off('SIGTERM', stop)
  }
  io.err('Callsight stopped.\n')
  return EXIT.ok
}
