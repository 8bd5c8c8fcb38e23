import { resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defaultDataDir } from '../../host/web/data-dir'
import { hasDisplay, openInBrowser } from '../../host/web/open-browser'
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
    try {
      // Line one is the address and nothing else: scripts and `npm start` read it.
      io.out(`${running.launchUrl}\n`)
      const opened = !values['no-open'] && hasDisplay() && (await openInBrowser(running.launchUrl))
      io.err(
        `Callsight is running at ${running.origin} — ${opened ? 'opened in your browser' : 'open the address above in a browser on this computer'}.\n` +
          `Data: ${dataDir}${values.demo ? ' (signed in to the demo)' : ''}. Log: ${running.logFile}. Stop with Ctrl-C.\n`
      )
      await stopping
    } finally {
      await running.close()
    }
  } finally {
    process.off('SIGTERM', stop)
  }
  io.err('Callsight stopped.\n')
  return EXIT.ok
}
