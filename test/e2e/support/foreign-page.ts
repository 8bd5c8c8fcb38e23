import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A page on another 127.0.0.1 origin (another port: same-site for cookies), to attack from. */
export async function serveForeignPage(body = '<p>Not Callsight</p>'): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
    res.end(`<!doctype html><title>Elsewhere</title>${body}`)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}
