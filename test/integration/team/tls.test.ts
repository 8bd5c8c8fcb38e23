import { execFileSync } from 'node:child_process'
import { chownSync, copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, mapPgError, PgSyncStore, poolConfig } from '../../../src/core/team'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { makeCerts, type TestCerts } from '../../support/test-certs'
import { tempDir } from './helpers'

let cluster: PgCluster
const tmp = tempDir('callsight-tls-')
let certs: TestCerts

beforeAll(async () => {
  certs = makeCerts(tmp.dir)
  cluster = await startPgCluster({
    settings: FAST_TEST_SETTINGS,
    beforeStart: (data, owner) => {
      // The server reads its key as its own user, and refuses a key others may read.
      const place = (from: string, name: string): string => {
        const to = join(data, name)
        copyFileSync(from, to)
        if (owner) chownSync(to, owner.uid, owner.gid)
        execFileSync('chmod', ['600', to])
        return to
      }
      return { ssl: 'on', ssl_cert_file: place(certs.cert, 'server.crt'), ssl_key_file: place(certs.key, 'server.key') }
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
    await expect(sslInUse(cluster.url, { sslMode: 'verify-ca', sslRootCert: certs.otherCa })).rejects.toMatchObject({
      code: 'Network',
      message: /TLS/
    })
  })

  it('refuses verify-ca and verify-full without a CA file instead of trusting the public bundle', async () => {
    for (const mode of ['verify-ca', 'verify-full'] as const) {
      await expect(sslInUse(`${cluster.url}?sslmode=${mode}`)).rejects.toMatchObject({
        code: 'InvalidInput',
        message: new RegExp(`sslmode ${mode} needs the CA file`)
      })
    }
    const empty = join(tmp.dir, 'empty.pem')
    writeFileSync(empty, '')
    expect(() => poolConfig({ url: cluster.url, schema: 'acme', sslMode: 'verify-ca', sslRootCert: empty })).toThrow(/no PEM certificate/)
  })

  it('verify-full checks the host name, verify-ca only the CA (a certificate for evil.example)', async () => {
    // The files keep their owner and mode; a reload makes new connections use their content.
    const use = async (cert: string, key: string): Promise<void> => {
      copyFileSync(cert, join(cluster.dir, 'data', 'server.crt'))
      copyFileSync(key, join(cluster.dir, 'data', 'server.key'))
      await cluster.sql('SELECT pg_reload_conf()')
    }
    await use(certs.evilCert, certs.evilKey)
    try {
      // The reload is asynchronous: wait (bounded) until new connections get the new certificate.
      const deadline = Date.now() + 10_000
      while (await sslInUse(cluster.url, { sslMode: 'verify-full', sslRootCert: certs.ca }).catch(() => false)) {
        if (Date.now() > deadline) throw new Error('the server kept its old certificate')
        await new Promise((r) => setTimeout(r, 50))
      }
      await expect(sslInUse(cluster.url, { sslMode: 'verify-full', sslRootCert: certs.ca })).rejects.toMatchObject({
        code: 'Network',
        message: /evil\.example|altnames|TLS/
      })
      expect(await sslInUse(cluster.url, { sslMode: 'verify-ca', sslRootCert: certs.ca })).toBe(true)
      await expect(sslInUse(cluster.url, { sslMode: 'verify-ca', sslRootCert: certs.otherCa })).rejects.toMatchObject({ code: 'Network' })
    } finally {
      await use(certs.cert, certs.key)
    }
  })

  it('refuses sslmodes that fall back to plain text, and a missing CA file', () => {
    expect(() => poolConfig({ url: `${cluster.url}?sslmode=prefer`, schema: 'acme' })).toThrow(/not supported/)
    expect(() => poolConfig({ url: cluster.url, schema: 'acme', sslMode: 'verify-full', sslRootCert: join(tmp.dir, 'none.pem') })).toThrow(
      /could not be read/
    )
  })
})
