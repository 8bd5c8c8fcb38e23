import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { createAppController } from '../core/app/controller'
import type { AppController, EventSink } from '../core/app/host-ports'
import { CallsightError } from '../core/errors'
import type { Logger } from '../core/platform'
import { createDemoProvider } from '../host/demo'
import { createFileLogger } from '../host/logging/file-logger'
import { lockDataDir } from './data-dir'
import { createDownloadStaging } from './downloads'
import { openFileInBrowser, openInBrowser } from './open-browser'
import { createBrowserPlatform } from './browser-host'
import { writeRedirectFile, type RedirectFile } from './redirect-file'
import { startWebServer } from './server'

/**
 * `callsight serve`: the whole app — the controller, the demo, the built renderer — in a
 * browser tab instead of Electron's window. Same screens, same files as the desktop app.
 */

export interface ServeOptions {
  /** The desktop app's userData, or --data-dir. */
  dataDir: string
  /** The built renderer (out/renderer). */
  rendererDir: string
  /** 0 or absent: a free port. */
  port?: number
  /** Signs in to the demo tenant before the URL is handed out. */
  demo?: boolean
  appVersion: string
  /** Echo the log to stderr. */
  verbose?: boolean
}

export interface RunningServe {
  readonly origin: string
  /** A new launch key's address, replacing any earlier one: one exchange, within minutes. Never log it. */
  issueLaunchUrl(): string
  /**
   * Opens a launch address in the user's browser through a private redirect file, so the key
   * is not in the opener's command line; the file goes once a key is spent or serve stops.
   */
  openInBrowser(launchUrl: string): Promise<boolean>
  readonly logFile: string
  close(): Promise<void>
}

export async function startServe(opts: ServeOptions): Promise<RunningServe> {
  if (!existsSync(join(opts.rendererDir, 'index.html'))) {
    throw new CallsightError('Internal', `The app's screens are not built: ${join(opts.rendererDir, 'index.html')} is missing.`, {
      hint: 'Run `npm run build` (or `npm start`, which builds first) and try again.'
    })
  }
  const lock = lockDataDir(opts.dataDir)
  const logger = createFileLogger({
    dir: join(opts.dataDir, 'logs'),
    name: 'serve',
    level: opts.verbose ? 'debug' : 'info',
    echo: opts.verbose === true
  })
  logger.log('info', 'Callsight starting in browser mode', { version: opts.appVersion, node: process.version, platform: process.platform })
  // A CSV is staged whole before the download: on a quiet machine that finished first in every
  // measured run (the streamed writer waits on the browser). CALLSIGHT_EXPORT_STREAM=1 streams
  // it into the download while it is written (the export bench measures both in one run).
  const downloads = createDownloadStaging({ stream: process.env['CALLSIGHT_EXPORT_STREAM'] === '1' })
  const redirects = new Set<RedirectFile>()
  // Any exchange spends the one live key, so every redirect file written so far is stale.
  const dropRedirects = (): void => {
    for (const r of redirects) r.remove()
    redirects.clear()
  }
  // The controller is made before the server, which owns the tabs' sockets: events go
  // through this relay, and are dropped until the server is up (no tab is open yet).
  let tabs: EventSink | null = null
  const events: EventSink = { emit: (event, payload) => tabs?.emit(event, payload) }
  let controller: AppController | null = null

  const cleanUp = async (): Promise<void> => {
    await controller?.dispose().catch((error: unknown) => logger.log('error', 'Shutdown did not finish cleanly', { error }))
    downloads.close()
    dropRedirects()
    lock.release()
  }

  try {
    const platform = createBrowserPlatform({
      dataDir: opts.dataDir,
      logger,
      events,
      downloads,
      demo: createDemoProvider({ logger }),
      appVersion: opts.appVersion,
      openExternal: (url) => openExternal(url, logger)
    })
    const app = createAppController(platform)
    controller = app
    const server = await startWebServer({
      rendererDir: opts.rendererDir,
      port: opts.port ?? 0,
      ...(opts.port ? {} : { preferPort: lastPort(opts.dataDir) }),
      logger,
      downloads,
      handlers: app.handlers,
      onExchange: dropRedirects
    })
    tabs = server.events
    rememberPort(opts.dataDir, Number(new URL(server.origin).port), logger)
    try {
      // The tab then opens on the demo's workspace, as if the demo button had been pressed.
      if (opts.demo) await app.handlers['session.startDemo']({}, { senderId: 0 })
    } catch (e) {
      await server.close()
      throw e
    }
    return {
      origin: server.origin,
      issueLaunchUrl: () => server.issueLaunchUrl(),
      async openInBrowser(launchUrl) {
        const redirect = writeRedirectFile(launchUrl)
        redirects.add(redirect)
        const opened = await openFileInBrowser(redirect.url)
        if (!opened) {
          redirect.remove()
          redirects.delete(redirect)
        }
        return opened
      },
      logFile: logger.file,
      async close() {
        await server.close()
        await cleanUp()
        logger.log('info', 'Callsight stopped')
      }
    }
  } catch (e) {
    await cleanUp()
    throw e
  }
}

async function openExternal(url: string, logger: Logger): Promise<void> {
  if (!(await openInBrowser(url))) {
    logger.log('warn', 'No browser opener could be started', {})
    throw new CallsightError('Internal', 'The link could not be opened on this computer.', { hint: `Open it yourself: ${url}` })
  }
}

/**
 * Where the app is installed: the folder of the package.json named "callsight" at or above
 * `from` (the CLI bundle lives in out/node; tests build it elsewhere under the repository).
 */
export function locateApp(from: string): { root: string; version: string; rendererDir: string } {
  for (let dir = resolve(from); ; dir = dirname(dir)) {
    const pkgFile = join(dir, 'package.json')
    if (existsSync(pkgFile)) {
      const pkg = JSON.parse(readFileSync(pkgFile, 'utf8')) as { name?: unknown; version?: unknown }
      if (pkg.name === 'callsight') return { root: dir, version: String(pkg.version ?? '0.0.0'), rendererDir: join(dir, 'out', 'renderer') }
    }
    if (dirname(dir) === dir) throw new CallsightError('Internal', `Callsight's package.json was not found above ${from}.`)
  }
}

/** The port the last serve on this data folder listened on: a bookmark of its address keeps working. */
const PORT_FILE = 'serve-port'

function lastPort(dataDir: string): number | undefined {
  try {
    const n = Number(readFileSync(join(dataDir, PORT_FILE), 'utf8').trim())
    return Number.isInteger(n) && n > 0 && n < 65_536 ? n : undefined
  } catch {
    return undefined
  }
}

function rememberPort(dataDir: string, port: number, logger: Logger): void {
  try {
    writeFileSync(join(dataDir, PORT_FILE), `${port}\n`)
  } catch (e) {
    logger.log('warn', 'The port could not be remembered for the next start', { error: String(e) })
  }
}
