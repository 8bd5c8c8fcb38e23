/**
 * A scripted HTTP server on 127.0.0.1 that plays a broken or hostile service: every request
 * is recorded (method, path, headers, body) and answered by the test's handler.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface SeenRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: string
}

export interface Hostile {
  url: string
  requests: SeenRequest[]
  stop(): Promise<void>
}

export type HostileHandler = (req: SeenRequest, res: ServerResponse) => void

export async function hostileServer(handler: HostileHandler): Promise<Hostile> {
  const requests: SeenRequest[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      requests.push(seen)
      handler(seen, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/**
 * Writes `prefix`, then spaces (valid JSON whitespace) in 64 KB chunks until `fill` bytes or
 * until the client goes away, then `suffix`. Resolves with the filler bytes the socket took.
 */
export function streamFiller(res: ServerResponse, fill: number, prefix = '', suffix = ''): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  let sent = 0
  let closed = false
  return new Promise((resolve) => {
    res.once('close', () => {
      closed = true
      resolve(sent)
    })
    res.write(prefix)
    const pump = (): void => {
      while (!closed && sent < fill) {
        const n = Math.min(chunk.length, fill - sent)
        sent += n
        if (!res.write(chunk.subarray(0, n))) {
          res.once('drain', pump)
          return
        }
      }
      if (!closed) res.end(suffix)
      resolve(sent)
    }
    pump()
  })
}
