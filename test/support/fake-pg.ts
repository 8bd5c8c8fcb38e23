/**
 * A stand-in PostgreSQL server on 127.0.0.1 that speaks just enough of the wire protocol to
 * ask a client for its password the way a hostile or misconfigured server would, and records
 * what the client sends back. Tests only: it never checks a password.
 */
import { createServer, type Server, type Socket } from 'node:net'
import { TLSSocket } from 'node:tls'
import type { Duplex } from 'node:stream'

export type FakeAuth =
  /** AuthenticationCleartextPassword (R, 3). */
  | 'cleartext'
  /** AuthenticationMD5Password (R, 5) with a salt. */
  | 'md5'
  /** AuthenticationGSS (R, 7). */
  | 'gss'
  /** AuthenticationOk straight away (trust), then ReadyForQuery. */
  | 'trust'
  /** AuthenticationSASL (R, 10) offering SCRAM-SHA-256 only, never -PLUS. */
  | 'scram-no-plus'
  /** A FATAL error right after the startup message. */
  | 'reject'

export interface FakePg {
  port: number
  /** Startup messages received (user, database). */
  startups: { user: string; database: string; tls: boolean }[]
  /** PasswordMessage / SASL response ('p') bodies received, as text. */
  passwords: string[]
  close(): Promise<void>
}

const u32 = (n: number): Buffer => {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n)
  return b
}
const msg = (type: string, body: Buffer): Buffer => Buffer.concat([Buffer.from(type), u32(body.length + 4), body])
const auth = (code: number, extra: Buffer = Buffer.alloc(0)): Buffer => msg('R', Buffer.concat([u32(code), extra]))

export async function startFakePg(mode: FakeAuth, tls?: { key: string; cert: string }): Promise<FakePg> {
  const startups: FakePg['startups'] = []
  const passwords: string[] = []
  const sockets = new Set<Socket>()

  const serve = (stream: Duplex, secure: boolean): void => {
    let buf = Buffer.alloc(0)
    let started = false
    stream.on('error', () => undefined)
    stream.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk])
      for (let guard = 0; guard < 100; guard++) {
        if (!started) {
          if (buf.length < 8) return
          const len = buf.readUInt32BE(0)
          if (buf.length < len) return
          const body = buf.subarray(4, len)
          buf = buf.subarray(len)
          if (body.readUInt32BE(0) === 80877103) {
            // SSLRequest: TLS when the test gave a certificate, else "N" (go on in plain text).
            if (tls && !secure) {
              stream.removeAllListeners('data')
              stream.write('S')
              const t = new TLSSocket(stream as Socket, { isServer: true, key: tls.key, cert: tls.cert })
              serve(t, true)
              return
            }
            stream.write('N')
            continue
          }
          const fields = body.subarray(4).toString('utf8').split('\0')
          const get = (k: string): string => fields[fields.indexOf(k) + 1] ?? ''
          startups.push({ user: get('user'), database: get('database'), tls: secure })
          started = true
          if (mode === 'cleartext') stream.write(auth(3))
          else if (mode === 'md5') stream.write(auth(5, Buffer.from([1, 2, 3, 4])))
          else if (mode === 'gss') stream.write(auth(7))
          else if (mode === 'scram-no-plus') stream.write(auth(10, Buffer.from('SCRAM-SHA-256\0\0')))
          else if (mode === 'reject') stream.end(msg('E', Buffer.from('SFATAL\0C28000\0Mfake server: go away\0\0')))
          else stream.write(Buffer.concat([auth(0), msg('Z', Buffer.from('I'))]))
          continue
        }
        if (buf.length < 5) return
        const len = buf.readUInt32BE(1)
        if (buf.length < len + 1) return
        const type = String.fromCharCode(buf[0]!)
        const body = buf.subarray(5, len + 1)
        buf = buf.subarray(len + 1)
        if (type === 'p') {
          passwords.push(body.toString('utf8'))
          const err = Buffer.from('SFATAL\0C28P01\0Mfake server: no\0\0')
          stream.end(msg('E', err))
          return
        }
        if (type === 'X') {
          stream.end()
          return
        }
      }
    })
  }

  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    serve(socket, false)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const addr = server.address()
  const port = typeof addr === 'object' && addr ? addr.port : 0
  return {
    port,
    startups,
    passwords,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      })
  }
}
