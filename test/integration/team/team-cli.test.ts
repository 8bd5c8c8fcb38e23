import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache } from '../../../src/core/cache'
import { createPool, PG_SCHEMA_VERSION, pullTeamCache } from '../../../src/core/team'
import type { RunningService } from '../../../src/reference-service'
import { buildCli, removeBuild } from '../cli/build-cli'
import { runCli } from '../cli/helpers'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, pgContent, sqliteContent, startTestService, tempDir } from './helpers'
import { connectionOf } from '../../../src/core/cache/call-cache'

let cli = ''
let cluster: PgCluster
let service: RunningService
let database = ''
const tmp = tempDir('callsight-team-cli-')
const ENV = { CALLSIGHT_WRITER_PASSWORD: 'w-secret-1', CALLSIGHT_READER_PASSWORD: 'r-secret-1' }

beforeAll(async () => {
  ;[cli, cluster, service] = await Promise.all([
    buildCli(),
    startPgCluster({ settings: FAST_TEST_SETTINGS }),
    startTestService({ calls: 3000 })
  ])
  database = await freshDatabase(cluster)
}, 120_000)

afterAll(async () => {
  await service?.stop()
  await cluster?.stop()
  removeBuild(cli)
  tmp.remove()
})

const range = ['--from', '2026-01-05T06:00:00Z', '--to', '2026-01-05T18:00:01Z', '--zone', 'Europe/Istanbul', '--rate-limit', '600/1']

describe('callsight team init, sync --db postgres://, pull', () => {
  it('sets up the schema and two roles; the writer syncs, the reader pulls and can write nothing', async () => {
    const admin = cluster.urlFor({ database })
    // The owner's password in PGPASSWORD: the command line takes none.
    const owner = cluster.credentialsFor({ database })
    const ownerEnv = { PGPASSWORD: owner.password! }
    const init = await runCli(cli, ['team', 'init', '--db', owner.url, '--schema', 'acme'], { ...ENV, ...ownerEnv })
    expect(init.code, init.stderr).toBe(0)
    expect(init.stdout).toMatch(/Created role acme_writer/)
    expect(init.stdout + init.stderr).not.toMatch(/secret/)
    // Again: idempotent, passwords kept when none is given.
    const again = await runCli(cli, ['team', 'init', '--db', owner.url, '--schema', 'acme'], ownerEnv)
    expect(again.code, again.stderr).toBe(0)

    const writerUrl = cluster.urlFor({ database, user: 'acme_writer' })
    const readerUrl = cluster.urlFor({ database, user: 'acme_reader' })
    const sync = await runCli(
      cli,
      [
        'sync',
        '--server',
        service.url,
        '--user',
        'demo',
        '--db',
        writerUrl,
        '--schema',
        'acme',
        '--results',
        'all',
        '--analysis',
        ...range
      ],
      { PGPASSWORD: 'w-secret-1' }
    )
    expect(sync.code, sync.stderr).toBe(0)
    expect(sync.stdout).toMatch(/Sync done: 3000 calls stored/)

    // The reader's role cannot sync, nor write anything by hand.
    const refused = await runCli(
      cli,
      ['sync', '--server', service.url, '--user', 'demo', '--db', readerUrl, '--schema', 'acme', ...range],
      { PGPASSWORD: 'r-secret-1' }
    )
    expect(refused.code).toBe(5)
    expect(refused.stderr).toMatch(/not allowed/)
    const c = new pg.Client({ connectionString: cluster.urlFor({ database, user: 'acme_reader', password: 'r-secret-1' }) })
    await c.connect()
    try {
      await expect(
        c.query(
          "INSERT INTO acme.calls (call_id, call_at, call_date, title, summary, extra, first_seen_at, last_changed_at, seq) VALUES ('x', 0, '', '', '', '{}', 0, 0, 1)"
        )
      ).rejects.toThrow(/read-only transaction/)
      // Not only read-only by default: without the privilege too.
      await c.query('BEGIN READ WRITE')
      await expect(c.query("UPDATE acme.calls SET title = 'x'")).rejects.toThrow(/permission denied/)
      await c.query('ROLLBACK')
      await expect(c.query('SELECT * FROM acme.checkpoints')).rejects.toThrow(/permission denied/)
      await expect(c.query('CREATE TABLE acme.mine (x int)')).rejects.toThrow(/read-only|permission denied/)
    } finally {
      await c.end()
    }
    // A wrong password is refused with exit 3 and never printed.
    const wrong = await runCli(cli, ['pull', '--from', readerUrl, '--schema', 'acme', '--db', join(tmp.dir, 'x.sqlite')], {
      PGPASSWORD: 'nope-nope'
    })
    expect(wrong.code).toBe(3)
    expect(wrong.stdout + wrong.stderr).not.toMatch(/nope-nope/)

    // Two workstations pull with the reader's role.
    const want = await pgContent(admin, 'acme')
    let pulledTo = 0
    for (const name of ['one', 'two']) {
      const file = join(tmp.dir, `${name}.sqlite`)
      const r = await runCli(cli, ['pull', '--from', readerUrl, '--schema', 'acme', '--db', file, '--json'], { PGPASSWORD: 'r-secret-1' })
      expect(r.code, r.stderr).toBe(0)
      const last = JSON.parse(r.stdout.trim().split('\n').pop()!) as { phase: string; calls: number; cursor: number }
      expect(last).toMatchObject({ phase: 'done', calls: 3000 })
      pulledTo = last.cursor
      const cache = openCache(file)
      try {
        const got = sqliteContent(cache)
        expect(got.calls).toEqual(want.calls)
        expect(got.members).toEqual(want.members)
        expect(got.scopes).toEqual(want.scopes)
        expect(cache.teamSource()?.source).not.toMatch(/r-secret-1/)
      } finally {
        cache.close()
      }
      const search = await runCli(cli, ['search', '--db', file, '--results', 'all', '--json', '--limit', '3'])
      expect(JSON.parse(search.stdout).total).toBe(3000)
    }
    // The pulled file says where it came from, without a password.
    const db = new Database(join(tmp.dir, 'one.sqlite'), { readonly: true })
    expect(db.prepare('SELECT source FROM team_source').pluck().get()).toBe(readerUrl)
    db.close()

    const status = await runCli(cli, ['team', 'status', '--db', readerUrl, '--schema', 'acme', '--json'], { PGPASSWORD: 'r-secret-1' })
    // Synced by hand, with no worker: status says so (15, stopped) for monitoring to alert on.
    expect(status.code, status.stderr).toBe(15)
    // Its last change number is where a pull ends (memberships and scopes are numbered too).
    expect(JSON.parse(status.stdout)).toMatchObject({ schemaVersion: PG_SCHEMA_VERSION, calls: 3000, lastChange: pulledTo })
    expect(pulledTo).toBeGreaterThan(3000)
  }, 120_000)

  it('refuses a connection string with a password on the command line, before connecting', async () => {
    const { url } = cluster.credentialsFor({ database, user: 'acme_reader' })
    const file = join(tmp.dir, 'argv.sqlite')
    const cases: [string[], string][] = [
      [['pull', '--from', url.replace('@', ':argv-secret@'), '--schema', 'acme', '--db', file], 'user:password@'],
      [['pull', '--from', `${url}?password=argv-secret`, '--schema', 'acme', '--db', file], '?password='],
      [['team', 'status', '--db', `${url}?sslmode=require&sslpassword=argv-secret`, '--schema', 'acme'], '?sslpassword='],
      [['team', 'init', '--db', `${url}?password=argv-secret`, '--schema', 'acme'], '?password='],
      [['sync', '--server', service.url, '--user', 'demo', '--db', `${url}?password=argv-secret`, ...range], '?password=']
    ]
    for (const [args, where] of cases) {
      const r = await runCli(cli, args, ENV)
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain(`holds a password (${where})`)
      expect(r.stderr).toMatch(/PGPASSWORD/)
      expect(r.stdout + r.stderr).not.toContain('argv-secret')
    }
  }, 60_000)

  it('ten workstations pulling send no request to the service', async () => {
    const readerUrl = cluster.urlFor({ database, user: 'acme_reader', password: 'r-secret-1' })
    service.admin.resetStats()
    await Promise.all(
      Array.from({ length: 10 }, async (_, i) => {
        const pool = createPool({ url: readerUrl, schema: 'acme', maxConnections: 1 })
        const cache = openCache(join(tmp.dir, `ws-${i}.sqlite`))
        try {
          // A library caller may hand over a label with secrets: none of them is stored.
          const sourceLabel = `${readerUrl}?sslmode=disable&password=r-secret-1&sslpassword=key-secret`
          const r = await pullTeamCache({ pool, schema: 'acme', sourceLabel, cache })
          expect(r).toMatchObject({ phase: 'done', calls: 3000 })
          const stored = connectionOf(cache).prepare('SELECT source FROM team_source').pluck().get() as string
          expect(stored).toMatch(/^postgres:\/\/acme_reader:\*\*\*@127\.0\.0\.1/)
          expect(stored).not.toMatch(/secret/)
        } finally {
          cache.close()
          await pool.end()
        }
      })
    )
    expect(service.admin.stats().requests).toBe(0)
  }, 120_000)
})
