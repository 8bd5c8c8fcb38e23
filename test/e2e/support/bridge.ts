import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { WebSocketServer, type WebSocket } from 'ws'
import { CHANNELS, ipcChannel, type ChannelName } from '../../../src/shared/ipc/names'
import type { EventSink, Handlers } from '../../../src/core/app/platform'
import type { Logger } from '../../../src/core/platform'
import { bindRouter, type IpcEventLike, type IpcMainLike } from '../../../src/main/ipc/router'
import { createEventSink } from '../../../src/main/ipc/events'
import { CONTENT_SECURITY_POLICY } from '../../../src/main/security/csp'

/**
 * The browser test bridge: the app's own IPC router (bindRouter, the same Handlers, the
 * same sender checks and schemas) behind HTTP and a WebSocket on 127.0.0.1, so the built
 * renderer can run in a plain browser. Test side only; never shipped.
 *
 *   POST /invoke/<channel>   body: the request as JSON; header x-callsight-bridge-key
 *   GET  /events?key=…       WebSocket; each message is {channel, payload} for ipcEvent(name)
 *   GET  /…                  the built renderer (when staticRoot is set), with the app's CSP header
 *
 * The renderer is served from the same origin as the bridge on purpose: the app's CSP
 * allows connect-src 'self' only, and it must not be loosened for tests.
 * The caller's Origin header plays the part of senderFrame.url, so a page on any other
 * origin is refused by the router exactly as a foreign frame would be in Electron.
 */
export const KEY_HEADER = 'x-callsight-bridge-key'
const MAX_BODY_BYTES = 64 * 1024 * 1024

export interface BridgeOptions {
  /** The controller's handlers, or a factory given the bridge's event sink. */
  handlers: Handlers | ((events: EventSink) => Handlers)
  /** A folder to serve at / (out/renderer). */
  staticRoot?: string
  logger?: Logger
}

export interface Bridge {
  /** http://127.0.0.1:<port> */
  readonly url: string
  /** Required on every request; random per run. */
  readonly key: string
  /** Events to the page(s), validated against the contract like the app's own. */
  readonly events: EventSink
  /** Calls made through /invoke, by channel, refused or not. */
  readonly calls: ReadonlyArray<{ channel: ChannelName; origin: string }>
  eventClients(): number
  waitForEventClients(count: number, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, (event: IpcEventLike, payload: unknown) => unknown>()
  handle(channel: string, fn: (event: IpcEventLike, payload: unknown) => unknown): void {
    this.handlers.set(channel, fn)
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel)
  }
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.map': 'application/json'
}

function sameKey(given: string | undefined | null, key: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(key)
  return a.length === b.length && timingSafeEqual(a, b)
}

export async function startBridge(opts: BridgeOptions): Promise<Bridge> {
  const key = randomBytes(24).toString('base64url')
  const sockets = new Set<WebSocket>()
  const calls: { channel: ChannelName; origin: string }[] = []
  const channelSet = new Set<string>(CHANNELS)
  let origin = ''

  const events = createEventSink(
    () => ({
      isDestroyed: () => false,
      send: (channel: string, payload: unknown) => {
        const message = JSON.stringify({ channel, payload })
        for (const s of sockets) if (s.readyState === s.OPEN) s.send(message)
      }
    }),
    opts.logger
  )
  const handlers = typeof opts.handlers === 'function' ? opts.handlers(events) : opts.handlers
  const ipc = new FakeIpcMain()
  const isTrustedOrigin = (url: string): boolean => {
    try {
      return new URL(url).origin === origin
    } catch {
      return false
    }
  }
  bindRouter(ipc, handlers, { isTrustedOrigin, ...(opts.logger ? { logger: opts.logger } : {}) })

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      opts.logger?.log('error', 'bridge request failed', { error: e })
      if (!res.headersSent) res.writeHead(500).end()
      else res.destroy()
    })
  })

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin)
    if (url.pathname.startsWith('/invoke/')) return invoke(req, res, decodeURIComponent(url.pathname.slice('/invoke/'.length)))
    if (opts.staticRoot && (req.method === 'GET' || req.method === 'HEAD')) return serveStatic(opts.staticRoot, url.pathname, req, res)
    res.writeHead(404).end()
  }

  async function invoke(req: IncomingMessage, res: ServerResponse, channel: string): Promise<void> {
    const requestOrigin = req.headers.origin
    // Let pages on other origins through CORS so the router, not the browser, refuses them.
    if (requestOrigin) res.setHeader('Access-Control-Allow-Origin', requestOrigin)
    res.setHeader('Vary', 'Origin')
    if (req.method === 'OPTIONS') {
      res.writeHead(204, {
        'Access-Control-Allow-Methods': 'POST',
        'Access-Control-Allow-Headers': `content-type, ${KEY_HEADER}`,
        'Access-Control-Max-Age': '60'
      })
      res.end()
      return
    }
    if (req.method !== 'POST') return void res.writeHead(405).end()
    if (!sameKey(req.headers[KEY_HEADER] as string | undefined, key)) return void res.writeHead(401).end()
    if (!channelSet.has(channel)) return void res.writeHead(404).end()

    const body = await readBody(req)
    if (body === null) return void res.writeHead(413).end()
    let payload: unknown
    try {
      payload = body.length === 0 ? undefined : JSON.parse(body)
    } catch {
      return void res.writeHead(400).end()
    }
    calls.push({ channel: channel as ChannelName, origin: requestOrigin ?? '' })
    const fn = ipc.handlers.get(ipcChannel(channel as ChannelName))
    if (!fn) return void res.writeHead(404).end()
    const event: IpcEventLike = { senderFrame: { url: requestOrigin ?? '', parent: null }, sender: { id: 1 } }
    const result = await fn(event, payload)
    res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' })
    res.end(JSON.stringify(result))
  }

  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 })
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const url = new URL(req.url ?? '/', origin)
    const ok = url.pathname === '/events' && sameKey(url.searchParams.get('key'), key) && isTrustedOrigin(req.headers.origin ?? '')
    if (!ok) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n')
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws)
      ws.on('close', () => sockets.delete(ws))
      ws.on('error', () => sockets.delete(ws))
    })
  })

  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolveListen())
  })
  const port = (server.address() as AddressInfo).port
  origin = `http://127.0.0.1:${port}`

  return {
    url: origin,
    key,
    events,
    calls,
    eventClients: () => sockets.size,
    async waitForEventClients(count, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs
      while (sockets.size < count) {
        if (Date.now() > until) throw new Error(`No page connected to the bridge's events within ${timeoutMs} ms`)
        await new Promise((r) => setTimeout(r, 20))
      }
    },
    async close() {
      for (const s of sockets) s.terminate()
      wss.close()
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string | null> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) return null
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

async function serveStatic(root: string, pathname: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const base = resolve(root)
  let rel: string
  try {
    rel = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '')
  } catch {
    return void res.writeHead(400).end()
  }
  let file = join(base, rel)
  if (file !== base && !file.startsWith(base + sep)) return void res.writeHead(403).end()
  let info = await stat(file).catch(() => null)
  if (info?.isDirectory()) {
    file = join(file, 'index.html')
    info = await stat(file).catch(() => null)
  }
  // Browsers ask for a favicon Electron never requests; keep that out of the error log.
  if (!info?.isFile()) return void res.writeHead(pathname === '/favicon.ico' ? 204 : 404).end()
  res.writeHead(200, {
    'Content-Type': CONTENT_TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Content-Security-Policy': CONTENT_SECURITY_POLICY,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store'
  })
  if (req.method === 'HEAD') return void res.end()
  createReadStream(file).pipe(res)
}
