import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, mapPgError, type TeamDbOptions } from '../../../src/core/team'
import { buildCli, removeBuild } from '../cli/build-cli'
import { runCli } from '../cli/helpers'
import { startFakePg, type FakeAuth, type FakePg } from '../../support/fake-pg'
import { FAST_TEST_SETTINGS, PG_SUPERUSER, PG_SUPERUSER_PASSWORD, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { makeCerts, type TestCerts } from '../../support/test-certs'
import { tempDir } from './helpers'

/**
 * A stand-in server that asks for the password in a way that would hand it over (cleartext,
 * MD5) or that we cannot check (GSSAPI, none at all) gets no password and a clear refusal;
 * the real cluster, which asks by SCRAM-SHA-256, still lets us in.
 */
let cli = ''
let cluster: PgCluster
let certs: TestCerts
const tmp = tempDir('callsight-pg-auth-')
const fakes: FakePg[] = []

beforeAll(async () => {
  certs = makeCerts(tmp.dir)
  ;[cli, cluster] = await Promise.all([buildCli(), startPgCluster({ settings: FAST_TEST_SETTINGS })])
}, 120_000)

afterAll(async () => {
  await Promise.all(fakes.map((f) => f.close()))
  await cluster?.stop()
  removeBuild(cli)
  tmp.remove()
})

async function fake(mode: FakeAuth, tls = false): Promise<FakePg> {
  const f = await startFakePg(mode, tls ? { key: readFileSync(certs.key, 'utf8'), cert: readFileSync(certs.cert, 'utf8') } : undefined)
  fakes.push(f)
  return f
}

/** Connects and runs one query with our pool; the error as the product shows it. */
async function tryConnect(opts: Omit<TeamDbOptions, 'schema'>): Promise<unknown> {
  const pool = createPool({ schema: 'acme', ...opts })
  try {
    await pool.query('SELECT 1')
    return null
  } catch (e) {
    return mapPgError(e)
  } finally {
    await pool.end()
  }
}

const SECRET = 'pw-that-must-not-leave'

describe('the password goes only to a server that asks by SCRAM-SHA-256', () => {
  it.each([
    ['cleartext', 'require', /the password in clear text/],
    ['cleartext', 'disable', /the password in clear text/],
    ['md5', 'disable', /an MD5 password hash/],
    ['gss', 'disable', /GSSAPI authentication/],
    ['trust', 'disable', /no password at all/]
  ] as const)('refuses %s (sslmode %s) and sends no password', async (mode, sslMode, message) => {
    const f = await fake(mode, sslMode !== 'disable')
    const err = await tryConnect({ url: `postgres://reader@127.0.0.1:${f.port}/team`, password: SECRET, sslMode })
    expect(err).toMatchObject({ code: 'Network', message })
    expect((err as Error).message + String((err as { hint?: string }).hint)).toMatch(/SCRAM-SHA-256/)
    expect(f.startups).toHaveLength(1)
    expect(f.startups[0]!.tls).toBe(sslMode !== 'disable')
    expect(f.passwords).toEqual([])
  })

  it('with verify-full, refuses SCRAM without channel binding before sending anything', async () => {
    const f = await fake('scram-no-plus', true)
    const err = await tryConnect({
      url: `postgres://reader@127.0.0.1:${f.port}/team`,
      password: SECRET,
      sslMode: 'verify-full',
      sslRootCert: certs.ca
    })
    expect(err).toMatchObject({ code: 'Network', message: /SCRAM without channel binding/ })
    expect(f.startups).toEqual([{ user: 'reader', database: 'team', tls: true }])
    expect(f.passwords).toEqual([])
  })

  it('still connects to the real cluster, which asks by SCRAM, and refuses a wrong password there', async () => {
    expect(
      await tryConnect({ url: `postgres://${PG_SUPERUSER}@127.0.0.1:${cluster.port}/postgres`, password: PG_SUPERUSER_PASSWORD })
    ).toBeNull()
    expect(await tryConnect({ url: `postgres://${PG_SUPERUSER}@127.0.0.1:${cluster.port}/postgres`, password: 'wrong' })).toMatchObject({
      code: 'InvalidCredentials'
    })
  })

  it.each(['cleartext', 'md5'] as const)(
    'callsight pull and worker send a %s-asking server no password',
    async (mode) => {
      const f = await fake(mode)
      const url = `postgres://acme_reader@127.0.0.1:${f.port}/team`
      const pull = await runCli(cli, ['pull', '--from', url, '--schema', 'acme', '--db', join(tmp.dir, `${mode}.sqlite`)], {
        PGPASSWORD: SECRET
      })
      expect(pull.code, pull.stderr).toBe(7)
      expect(pull.stderr).toMatch(/asked for .*Callsight refused and sent no password/)

      const config = join(tmp.dir, `worker-${mode}.json`)
      writeFileSync(
        config,
        JSON.stringify({
          server: 'http://127.0.0.1:9',
          user: 'demo',
          zone: 'Europe/Istanbul',
          db: `postgres://acme_writer@127.0.0.1:${f.port}/team`,
          schema: 'acme',
          scopes: [{ name: 'everything', from: '2026-01-05T06:00:00Z', analysis: false, results: 'all' }]
        })
      )
      const worker = await runCli(cli, ['worker', '--config', config, '--once'], { PGPASSWORD: SECRET })
      expect(worker.code, worker.stderr).toBe(7)
      expect(worker.stdout + worker.stderr).toMatch(/Callsight refused and sent no password/)

      expect(f.startups.map((s) => s.user)).toEqual(['acme_reader', 'acme_writer'])
      expect(f.passwords).toEqual([])
      expect(pull.stdout + pull.stderr + worker.stdout + worker.stderr).not.toContain(SECRET)
    },
    60_000
  )
})
