import { execFileSync } from 'node:child_process'
import { chownSync, copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, mapPgError, PgSyncStore, poolConfig } from '../../../src/core/team'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { tempDir } from './helpers'

/** A CA and a server certificate for 127.0.0.1, made with openssl for this test only. */
function makeCerts(dir: string): { ca: string; otherCa: string; cert: string; key: string } {
  const f = (n: string): string => join(dir, n)
  const ssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'ignore' })
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=callsight test CA',
    '-keyout',
    f('ca.key'),
    '-out',
    f('ca.pem')
  )
  ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=another CA',
    '-keyout',
    f('other.key'),
    '-out',
    f('other.pem')
  )
  ssl('req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', f('server.key'), '-out', f('server.csr'))
  writeFileSync(f('san.ext'), 'subjectAltName=IP:127.0.0.1\n')
  ssl(
    'x509',
    '-req',
    '-in',
    f('server.csr'),
    '-CA',
    f('ca.pem'),
    '-CAkey',
    f('ca.key'),
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    f('san.ext'),
    '-out',
    f('server.pem')
  )
  return { ca: f('ca.pem'), otherCa: f('other.pem'), cert: f('server.pem'), key: f('server.key') }
}

let cluster: PgCluster
const tmp = tempDir('callsight-tls-')
let certs: ReturnType<typeof makeCerts>

beforeAll(async () => {
  certs = makeCerts(tmp.dir)
  cluster = await startPgCluster({
    settings: FAST_TEST_SETTINGS,
    beforeStart: (data, owner) => {
      // The server reads its key as its own user, and refuses a key others may read.
      const cert = join(data, 'server.crt')
      const key = join(data, 'server.key')
      copyFileSync(certs.cert, cert)
      copyFileSync(certs.key, key)
      if (owner) {
        chownSync(cert, owner.uid, owner.gid)
        chownSync(key, owner.uid, owner.gid)
      }
      execFileSync('chmod', ['600', key])
      return { ssl: 'on', ssl_cert_file: cert, ssl_key_file: key }
    }
  })
  await (await PgSyncStore.open({ url: cluster.url, schema: 'acme', migrate: true })).close()
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
  tmp.remove()
})

async function sslInUse(
  url: string,
  extra: { sslMode?: 'disable' | 'require' | 'verify-ca' | 'verify-full'; sslRootCert?: string } = {}
): Promise<boolean> {
  const pool = createPool({ url, schema: 'acme', ...extra })
  try {
    const r = await pool.query<{ ssl: boolean }>('SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()')
    return r.rows[0]!.ssl
  } catch (e) {
    throw mapPgError(e)
  } finally {
    await pool.end()
  }
}

describe('TLS to the team cache', () => {
  it('honours sslmode and the CA file, from the connection string or the options', async () => {
    expect(await sslInUse(cluster.url)).toBe(false)
    expect(await sslInUse(`${cluster.url}?sslmode=require`)).toBe(true)
    expect(await sslInUse(`${cluster.url}?sslmode=verify-full&sslrootcert=${encodeURIComponent(certs.ca)}`)).toBe(true)
    expect(await sslInUse(cluster.url, { sslMode: 'verify-ca', sslRootCert: certs.ca })).toBe(true)
    // A certificate from a CA we were not told to trust is refused, with words to act on.
    await expect(sslInUse(cluster.url, { sslMode: 'verify-full', sslRootCert: certs.otherCa })).rejects.toMatchObject({
      code: 'Network',
      message: /TLS/
    })
    await expect(sslInUse(`${cluster.url}?sslmode=verify-full`)).rejects.toMatchObject({ code: 'Network' })
  })

  it('refuses sslmodes that fall back to plain text, and a missing CA file', () => {
    expect(() => poolConfig({ url: `${cluster.url}?sslmode=prefer`, schema: 'acme' })).toThrow(/not supported/)
    expect(() => poolConfig({ url: cluster.url, schema: 'acme', sslMode: 'verify-full', sslRootCert: join(tmp.dir, 'none.pem') })).toThrow(
      /could not be read/
    )
  })
})
