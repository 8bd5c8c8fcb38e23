/** Certificates made with openssl for one test run: a CA, another CA, and server certificates. */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface TestCerts {
  /** The CA that signed `cert` and `evilCert`. */
  ca: string
  /** A CA that signed nothing the servers present. */
  otherCa: string
  /** A server certificate for IP 127.0.0.1, and its key. */
  cert: string
  key: string
  /** A certificate for the name evil.example (not 127.0.0.1) from the same CA, and its key. */
  evilCert: string
  evilKey: string
}

export function makeCerts(dir: string): TestCerts {
  const f = (n: string): string => join(dir, n)
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' })
  const ca = (name: string, subject: string): void =>
    ssl(
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      subject,
      '-keyout',
      f(`${name}.key`),
      '-out',
      f(`${name}.pem`)
    )
  ca('ca', '/CN=callsight test CA')
  ca('other', '/CN=another CA')
  const server = (name: string, cn: string, san: string): void => {
    ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', `/CN=${cn}`, '-keyout', f(`${name}.key`), '-out', f(`${name}.csr`))
    writeFileSync(f(`${name}.ext`), `subjectAltName=${san}\n`)
    ssl(
      'x509',
      '-req',
      '-in',
      f(`${name}.csr`),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      f(`${name}.ext`),
      '-out',
      f(`${name}.pem`)
    )
  }
  server('server', '127.0.0.1', 'IP:127.0.0.1')
  server('evil', 'evil.example', 'DNS:evil.example')
  return {
    ca: f('ca.pem'),
    otherCa: f('other.pem'),
    cert: f('server.pem'),
    key: f('server.key'),
    evilCert: f('evil.pem'),
    evilKey: f('evil.key')
  }
}
