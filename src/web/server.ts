import { helpPage, HELP_PAGE_POLICY, wantsHelpPage } from './help-page'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { WebSocketServer, type WebSocket } from 'ws'
import { CHANNELS, ipcChannel, type ChannelName } from '../shared/ipc/names'
import { CallsightError } from '../core/errors'
import type { EventSink, Handlers } from '../core/app/host-ports'
import type { Logger } from '../core/platform'
import { CONTENT_SECURITY_POLICY } from '../host/csp'
import { createEventSink } from '../host/ipc/events'
import { bindRouter, type IpcEventLike, type IpcMainLike } from '../host/ipc/router'
import { clientScript, exchangeScript, TOKEN_META } from './client-script'
import type { DownloadStaging } from './downloads'
import { createGate, tokenFromProtocols, TOKEN_HEADER, WS_PROTOCOL, type Gate, type RequestFacts, type Refusal } from './gate'
import { CLIENT_SCRIPT_PATH, EXCHANGE_SCRIPT_PATH, contentTypeOf, openRendererFiles, sendFile } from './static-files'

/**
 * The app's IPC router over HTTP and a WebSocket, on 127.0.0.1 only: the browser tab's
 * equivalent of Electron's ipcMain. One binding for `callsight serve` and the end-to-end
 * tests. Routes, all behind the gate (./gate.ts):
 *
 *   GET  /?key=…            a launch key, spent for the session cookie and the page token
 *   GET  /callsight-exchange.js  the exchange page's script: keeps the token, in this origin
 *   POST /invoke/<channel>  the request as JSON → the router's Result as JSON (with the token)
 *   GET  /events            WebSocket (with the token); each message is {channel: ipcEvent(name), payload}
 *   GET  /downloads/<id>    an export, once (browser mode has no save dialog): a CSV streamed
 *                           while it is written, other formats once finished
 *   GET  /callsight-api.js  window.api for the tab (./client-script.ts)
 *   GET  /…                 the built renderer, index.html with the client script
 *
 * The router is bound exactly as in Electron, with the request's Origin playing
 * senderFrame.url, so it checks the origin a second time after the gate did.
 */

const MAX_BODY_BYTES = 64 * 1024 * 1024

/**
 * The answer to a valid launch key: the cookie, and a page that hands the page token to its
 * script (which keeps it in this origin's localStorage, where no other port can read it) and
 * then moves on to the bare URL. The token is in this one answer only: the pages and scripts
 * the cookie alone buys never hold it. Not a 303: a redirect keeps the navigation's
 * initiator, so a key opened from a link on another site (a web terminal, the redirect file)
 * would reach / as a cross-site request, without the Strict cookie, and be refused. The
 * refresh is this page's own navigation: same-origin. It comes after the script, which the
 * parser runs first.
 */
function exchangePage(token: string): Buffer {
  return Buffer.from(
    `<!doctype html><meta name="${TOKEN_META}" content="${token}"><script src="${EXCHANGE_SCRIPT_PATH}"></script>` +
      '<meta http-equiv="refresh" content="0; url=/"><title>Callsight</title>\n'
  )
}

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'X-Frame-Options': 'DENY',
  'Cache-Control': 'no-store'
}

export interface WebServerOptions {
  /** The controller's handlers. */
  handlers: Handlers
  /** The built renderer (out/renderer). */
  rendererDir: string
  /** 0 or absent: a free port. */
  port?: number
  /** With no `port`: this one when it is free (the last run's, so the address stays the same), else any. */
  preferPort?: number
  logger?: Logger
  /** Where exports wait for the browser to fetch them. */
  downloads?: DownloadStaging
  /** Told after each successful exchange of a launch key. */
  onExchange?: () => void
}

export interface WebServer {
  /** http://127.0.0.1:<port> */
  readonly origin: string
  /**
   * The origin with a new launch key, which replaces any earlier one: good for one exchange
   * within LAUNCH_KEY_LIFETIME_MS. Print it or open it, never log it.
   */
  issueLaunchUrl(): string
  /** Events to every open tab, validated against the contract like the desktop app's. */
  readonly events: EventSink
  close(): Promise<void>
}

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const log = opts.logger
  const files = openRendererFiles(opts.rendererDir)
  const script = Buffer.from(clientScript())
  const exchanger = Buffer.from(exchangeScript())
  const sockets = new Set<WebSocket>()

  const events = createEventSink(
    () => ({
      isDestroyed: () => false,
      send: (channel: string, payload: unknown) => {
        const message = JSON.stringify({ channel, payload })
        for (const s of sockets) if (s.readyState === s.OPEN) s.send(message)
      }
    }),
    log
  )

  const server = createServer()
  const port = await listenPreferring(server, opts.port ?? 0, opts.preferPort)
  const gate: Gate = createGate({ port })
  const origin = `http://127.0.0.1:${port}`

  const routes = new Map<string, (event: IpcEventLike, payload: unknown) => unknown>()
  const ipc: IpcMainLike = {
    handle: (channel, fn) => void routes.set(channel, fn),
    removeHandler: (channel) => void routes.delete(channel)
  }
  const unbind = bindRouter(ipc, opts.handlers, { isTrustedOrigin: (url) => gate.isOwnOrigin(url), ...(log ? { logger: log } : {}) })
  const channels = new Set<string>(CHANNELS)

  const refuse = (reason: Refusal | 'path', req: IncomingMessage): void => {
    // The path only: a query may hold a (wrong) launch key, and a key is never logged.
    const path = (req.url ?? '').split('?')[0]?.slice(0, 200)
    log?.log('warn', 'request refused', { reason, method: req.method, path })
  }

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((e: unknown) => {
      log?.log('error', 'request failed', { error: e })
      if (!res.headersSent) res.writeHead(500, SECURITY_HEADERS).end()
      else res.destroy()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const head = req.method === 'HEAD'
    const verdict = gate.check(factsOf(req, false))
    if (verdict.kind === 'deny') {
      refuse(verdict.reason, req)
      if (wantsHelpPage(verdict.reason, req.method, req.url)) {
        const help = helpPage(req.headers['accept-language'])
        res.writeHead(403, {
          ...SECURITY_HEADERS,
          'Content-Security-Policy': HELP_PAGE_POLICY,
          'Content-Type': 'text/html; charset=utf-8',
          'Content-Length': String(help.length)
        })
        return void res.end(head ? undefined : help)
      }
      return void res.writeHead(403, { 'Content-Length': '0', 'Cache-Control': 'no-store' }).end()
    }
    if (verdict.kind === 'exchange') {
      const page = exchangePage(gate.pageToken)
      opts.onExchange?.()
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Set-Cookie': gate.sessionCookie(),
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Length': String(page.length)
      })
      return void res.end(page)
    }
    const { pathname } = verdict
    if (pathname.startsWith('/invoke/')) return invoke(req, res, pathname.slice('/invoke/'.length), verdict.origin)
    if (req.method === 'POST') return void res.writeHead(405, SECURITY_HEADERS).end()
    if (pathname.startsWith('/downloads/')) return download(req, res, pathname.slice('/downloads/'.length))
    if (pathname === CLIENT_SCRIPT_PATH || pathname === EXCHANGE_SCRIPT_PATH) {
      const body = pathname === CLIENT_SCRIPT_PATH ? script : exchanger
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/javascript; charset=utf-8', 'Content-Length': String(body.length) })
      return void res.end(head ? undefined : body)
    }
    if (pathname === '/' || pathname === '/index.html') {
      res.writeHead(200, {
        ...SECURITY_HEADERS,
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Length': String(files.indexHtml.length)
      })
      return void res.end(head ? undefined : files.indexHtml)
    }
    const file = await files.resolve(pathname)
    // Browsers ask for a favicon Electron never requests; keep that out of the error log.
    if (!file) return void res.writeHead(pathname === '/favicon.ico' ? 204 : 404, SECURITY_HEADERS).end()
    sendFile(res, file, SECURITY_HEADERS, head)
  }

  async function invoke(req: IncomingMessage, res: ServerResponse, rawChannel: string, requestOrigin: string): Promise<void> {
    if (req.method !== 'POST') return void res.writeHead(405, SECURITY_HEADERS).end()
    // JSON only: a cross-origin page cannot send it without a preflight, which the gate refuses.
    if (!(req.headers['content-type'] ?? '').toLowerCase().startsWith('application/json'))
      return void res.writeHead(415, SECURITY_HEADERS).end()
    let channel: string
    try {
      channel = decodeURIComponent(rawChannel)
    } catch {
      return void res.writeHead(404, SECURITY_HEADERS).end()
    }
    const fn = channels.has(channel) ? routes.get(ipcChannel(channel as ChannelName)) : undefined
    if (!fn) return void res.writeHead(404, SECURITY_HEADERS).end()

    const body = await readBody(req)
    if (body === null) return void res.writeHead(413, SECURITY_HEADERS).end()
    let payload: unknown
    try {
      payload = body.length === 0 ? undefined : JSON.parse(body)
    } catch {
      return void res.writeHead(400, SECURITY_HEADERS).end()
    }
    const event: IpcEventLike = { senderFrame: { url: requestOrigin, parent: null }, sender: { id: 1 } }
    const started = performance.now()
    const result = await fn(event, payload)
    // How long the router and core took, for the page's resource timing (the paint-latency
    // e2e splits a keystroke's time by it); the page is this server's own origin.
    const handled = `app;dur=${(performance.now() - started).toFixed(1)}`
    const json = Buffer.from(JSON.stringify(result))
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(json.length),
      'Server-Timing': handled
    })
    res.end(json)
  }

  async function download(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const staging = opts.downloads
    // A CSV still being written: the browser receives it as it comes, once.
    const live = staging && req.method === 'GET' ? staging.takeStream(id) : null
    if (live) {
      return live.sink.attach(res, {
        ...SECURITY_HEADERS,
        'Content-Type': contentTypeOf(live.name),
        'Content-Disposition': attachment(live.name)
      })
    }
    const entry = staging && req.method === 'GET' ? staging.take(id) : null
    const info = entry ? await stat(entry.file).catch(() => null) : null
    if (!staging || !entry || !info?.isFile()) return void res.writeHead(404, SECURITY_HEADERS).end()
    res.writeHead(200, {
      ...SECURITY_HEADERS,
      'Content-Type': contentTypeOf(entry.file),
      'Content-Length': String(info.size),
      'Content-Disposition': attachment(entry.name)
    })
    const stream = createReadStream(entry.file)
    stream.on('error', () => res.destroy())
    // Sent once: deleted when complete; an interrupted download can be asked for again.
    res.on('close', () => (res.writableFinished ? staging.discard(entry) : staging.putBack(id, entry)))
    stream.pipe(res)
  }

  // The answer names our own subprotocol, never the one that carried the token.
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024, handleProtocols: () => WS_PROTOCOL })
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const verdict = gate.check(factsOf(req, true))
    if (verdict.kind !== 'allow' || verdict.pathname !== '/events') {
      refuse(verdict.kind === 'deny' ? verdict.reason : 'path', req)
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws)
      ws.on('close', () => sockets.delete(ws))
      ws.on('error', () => sockets.delete(ws))
    })
  })

  log?.log('info', 'Browser mode listening', { origin })
  return {
    origin,
    issueLaunchUrl: () => `${origin}/?key=${gate.issueLaunchKey()}`,
    events,
    async close() {
      unbind()
      for (const s of sockets) s.terminate()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    }
  }
}

function factsOf(req: IncomingMessage, upgrade: boolean): RequestFacts {
  const one = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v)
  return {
    method: req.method ?? '',
    url: req.url ?? '/',
    host: req.headers.host,
    origin: one(req.headers.origin),
    secFetchSite: one(req.headers['sec-fetch-site']),
    cookie: req.headers.cookie,
    token: upgrade ? tokenFromProtocols(one(req.headers['sec-websocket-protocol'])) : one(req.headers[TOKEN_HEADER]),
    upgrade
  }
}

async function listenPreferring(server: ReturnType<typeof createServer>, port: number, prefer: number | undefined): Promise<number> {
  if (port !== 0 || prefer === undefined || prefer <= 0) return listen(server, port)
  try {
    return await listen(server, prefer)
  } catch (e) {
    if (!(e instanceof CallsightError)) throw e
    return listen(server, 0)
  }
}

function listen(server: ReturnType<typeof createServer>, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EADDRINUSE') {
        reject(
          new CallsightError('InvalidInput', `Port ${port} on 127.0.0.1 is in use.`, {
            hint: 'Choose another with --port, or leave --port out for a free one.'
          })
        )
      } else reject(e)
    })
    // Loopback only: nothing on the network can reach the app.
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port))
  })
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  if (Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES) return null
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) return null
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** A Content-Disposition that names the file for every browser, whatever its characters. */
export function attachment(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_')
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`
}
