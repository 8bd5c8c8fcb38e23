import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A page on another 127.0.0.1 origin (another port: same-site for cookies), to attack from.
 * It keeps the Cookie header of every request it gets: what a listener on another local port
 * receives from the browser.
 */
export async function serveForeignPage(
  body = '<p>Not Callsight</p>'
): Promise<{ url: string; cookies: Array<string | undefined>; close(): Promise<void> }> {
  const cookies: Array<string | undefined> = []
  const server = createServer((req, res) => {
    cookies.push(req.headers.cookie)
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
    res.end(`<!doctype html><title>Elsewhere</title>${body}`)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    cookies,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}
