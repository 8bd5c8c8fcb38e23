import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pullCommand } from '../../../src/cli/commands/pull'
import { teamCommand } from '../../../src/cli/commands/team'
import type { Io } from '../../../src/cli/output'
import { openCache } from '../../../src/core/cache'
import { createPool, PgSyncStore, readGeneration, teamInit } from '../../../src/core/team'
import { findPgBin } from '../../support/pg-cluster'
import { engineFor, freshDatabase, FROM_MS, pgContent, signedInSession, sqliteContent, TO_MS, useClusterAndService } from './helpers'

/**
 * A team cache restored from a backup, or reset on purpose: a workstation that pulled from it
 * before notices on its next pull, says why, and ends exactly as a fresh pull would.
 */
const team = useClusterAndService({ calls: 1500 }, 'callsight-restore-')

const ALL = { from: FROM_MS, to: TO_MS, results: 'all' as const, includeAnalysis: true }
const NEW_CALLS_TO = '2026-01-05T17:59:00Z'

/**
 * The CLI takes no password on its command line: the URL without it, the password through
 * PGPASSWORD (as a user runs it). The test's own pools keep the URL with the password.
 */
function argvUrl(url: string): string {
  const u = new URL(url)
  process.env['PGPASSWORD'] = decodeURIComponent(u.password)
  u.password = ''
  return u.toString()
}

function captureIo(): Io & { text(): string } {
  let text = ''
  return { out: (t) => void (text += t), err: (t) => void (text += t), tty: false, text: () => text }
}

/** `callsight pull --from URL --db FILE` in this process: its printed lines and exit code. */
async function pullCli(url: string, file: string): Promise<{ code: number; text: string }> {
  const io = captureIo()
  const code = await pullCommand(
    ['--from', argvUrl(url), '--schema', 'acme', '--db', file, '--batch', '300'],
    io,
    new AbortController().signal
  )
  return { code, text: io.text() }
}

async function init(url: string): Promise<boolean> {
  const pool = createPool({ url, schema: 'acme', maxConnections: 1 })
  try {
    return (await teamInit({ pool, schema: 'acme', writerRole: 'acme_writer', readerRole: 'acme_reader' })).restored
  } finally {
    await pool.end()
  }
}

async function generation(url: string): Promise<string> {
  const pool = createPool({ url, schema: 'acme', maxConnections: 1 })
  try {
    return await readGeneration(pool, 'acme')
  } finally {
    await pool.end()
  }
}

function pgTool(tool: 'pg_dump' | 'pg_restore', args: string[]): void {
  const bin = findPgBin()
  if (!bin) throw new Error('PostgreSQL binaries not found')
  const r = spawnSync(join(bin, tool), args, { encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`${tool} failed: ${r.stderr}`)
}

function expectSameCaches(file: string, fresh: string, want: Awaited<ReturnType<typeof pgContent>>): void {
  const a = openCache(file)
  const b = openCache(fresh)
  try {
    const got = sqliteContent(a)
    expect(got.calls.size).toBe(want.calls.size)
    expect(got.calls).toEqual(want.calls)
    expect(got.members).toEqual(want.members)
    expect(got.scopes).toEqual(want.scopes)
    expect(got).toEqual(sqliteContent(b))
  } finally {
    a.close()
    b.close()
  }
}

describe('a restored or reset team cache', () => {
  it('restored from a dump taken earlier: the workstation notices, says why and ends as a fresh pull', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    expect(await init(url)).toBe(false)
    let store = await PgSyncStore.open({ url, schema: 'acme' })
    const file = join(team.dir, 'restore-w.sqlite')
    try {
      await engineFor(session, store).run(ALL, { mode: 'full' })
      expect((await pullCli(url, file)).code).toBe(0)

      // The backup, then more changes the workstation pulls past it.
      const dump = join(team.dir, 'acme.dump')
      pgTool('pg_dump', ['-Fc', '-n', 'acme', '-f', dump, '-d', url])
      team.service.admin.addCalls(300, { from: '2026-01-05T17:00:00Z', to: NEW_CALLS_TO })
      await engineFor(session, store).run(ALL, { mode: 'full' })
      const ahead = await pullCli(url, file)
      expect(ahead.code, ahead.text).toBe(0)
      expect(ahead.text).not.toMatch(/pulling everything again/)
      const before = await generation(url)

      // The restore: drop, restore the earlier dump, init (which notices), new calls arrive.
      await store.close()
      const admin = createPool({ url, schema: 'acme', maxConnections: 1 })
      await admin.query('DROP SCHEMA acme CASCADE')
      await admin.end()
      pgTool('pg_restore', ['-d', url, dump])
      expect(await generation(url)).not.toBe(before)
      expect(await init(url)).toBe(true)
      team.service.admin.addCalls(200, { from: '2026-01-05T17:00:00Z', to: NEW_CALLS_TO })
      store = await PgSyncStore.open({ url, schema: 'acme' })
      await engineFor(session, store).run(ALL, { mode: 'full' })

      const after = await pullCli(url, file)
      expect(after.code, after.text).toBe(0)
      expect(after.text).toMatch(/The team cache was restored from a backup .*: pulling everything again\./)
      const fresh = join(team.dir, 'restore-fresh.sqlite')
      expect((await pullCli(url, fresh)).code).toBe(0)
      const want = await pgContent(url, 'acme')
      expect(want.calls.size).toBe(1500 + 300 + 200)
      expectSameCaches(file, fresh, want)

      // Once: the next pull goes on from its cursor.
      const again = await pullCli(url, file)
      expect(again.text).not.toMatch(/pulling everything again/)
      expect(again.text).toMatch(/Pull done: 0 calls new or changed/)
    } finally {
      await store.close()
    }
  }, 120_000)

  it('team reset: every workstation pulls everything again on its next pull', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    await init(url)
    const store = await PgSyncStore.open({ url, schema: 'acme' })
    const file = join(team.dir, 'reset-w.sqlite')
    try {
      await engineFor(session, store).run(ALL, { mode: 'full' })
      expect((await pullCli(url, file)).code).toBe(0)
      const io = captureIo()
      expect(await teamCommand(['reset', '--db', argvUrl(url), '--schema', 'acme'], io)).toBe(0)
      expect(io.text()).toMatch(/next pull starts over/)

      const after = await pullCli(url, file)
      expect(after.code, after.text).toBe(0)
      expect(after.text).toMatch(
        /The team cache was restored from a backup or reset \(its generation changed\): pulling everything again\./
      )
      const want = await pgContent(url, 'acme')
      expect(after.text).toMatch(new RegExp(`Pull done: ${want.calls.size} calls new or changed`))
      const fresh = join(team.dir, 'reset-fresh.sqlite')
      expect((await pullCli(url, fresh)).code).toBe(0)
      expectSameCaches(file, fresh, want)
    } finally {
      await store.close()
    }
  }, 120_000)
})
