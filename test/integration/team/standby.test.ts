import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { teamCommand } from '../../../src/cli/commands/team'
import type { Io } from '../../../src/cli/output'
import { createPool, PgSyncStore, readWorkerState } from '../../../src/core/team'
import { FAST_TEST_SETTINGS, startPgCluster, startStandby, type PgCluster } from '../../support/pg-cluster'
import { until } from '../../support/until'

/**
 * Workstations may pull (and read the worker's status) from a streaming replica: what the
 * status says there is what it says on the primary, read from the lease row alone.
 */
let primary: PgCluster
let standby: PgCluster | undefined

beforeAll(async () => {
  primary = await startPgCluster({ settings: FAST_TEST_SETTINGS })
  standby = await startStandby(primary, { settings: FAST_TEST_SETTINGS })
}, 120_000)

afterAll(async () => {
  await standby?.stop()
  await primary?.stop()
})

/** Waits until the standby has replayed everything the primary wrote so far. */
async function replayed(): Promise<void> {
  const lsn = (await primary.sql('SELECT pg_current_wal_insert_lsn()::text AS l')).rows[0]!.l as string
  await until(
    async () => ((await standby!.sql('SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS ok', [lsn])).rows[0]!.ok ? true : undefined),
    20_000
  )
}

async function statusOf(cluster: PgCluster): Promise<{ states: string[]; text: string; code: number }> {
  const pool = createPool({ url: cluster.url, schema: 'acme', maxConnections: 1 })
  try {
    const states = (await readWorkerState(pool, 'acme')).map((w) => `${w.name}:${w.status}:${w.worker}`)
    let text = ''
    const io: Io = { out: (t) => void (text += t), err: (t) => void (text += t), tty: false }
    // The CLI takes no password on its command line: PGPASSWORD gives it, as a user runs it.
    const { url, password } = cluster.credentialsFor()
    process.env['PGPASSWORD'] = password
    const code = await teamCommand(['status', '--db', url, '--schema', 'acme'], io)
    return { states, text: text.replace(/no heartbeat for \d+ s/, 'no heartbeat for N s'), code }
  } finally {
    await pool.end()
  }
}

describe('team status on a streaming standby', () => {
  it('says what the primary says: running, then stale when the lease lapses, then idle', async () => {
    const store = await PgSyncStore.open({ url: primary.url, schema: 'acme', migrate: true })
    try {
      expect((await standby!.sql('SELECT pg_is_in_recovery() AS r')).rows[0]!.r).toBe(true)
      expect(await store.lockScope('all', { leaseMs: 5000 })).toBe(true)
      // What the worker records of its run beside the lease.
      await primary.sql(`UPDATE acme.worker_scopes SET name = 'All calls', run_started_at = 1767592800000 WHERE scope_key = 'all'`)
      await store.keepScopeLock('all')
      await replayed()
      const running = await statusOf(primary)
      expect(running.states).toEqual([`All calls:running:${store.holder}`])
      expect(await statusOf(standby!)).toEqual(running)

      // No renewal: the lease lapses, on the primary's clock and the standby's alike.
      await until(async () => ((await statusOf(primary)).states[0]?.includes(':stale:') ? true : undefined), 20_000, 200)
      const stale = await statusOf(primary)
      expect(stale.text).toMatch(/stale: running since/)
      expect(await statusOf(standby!)).toEqual(stale)

      // The run ends: its outcome recorded, the lease given back.
      await primary.sql(`UPDATE acme.worker_scopes SET last_outcome = 'done' WHERE scope_key = 'all'`)
      await store.unlockScope('all')
      await replayed()
      const idle = await statusOf(primary)
      expect(idle.states).toEqual([`All calls:idle:${store.holder}`])
      expect(await statusOf(standby!)).toEqual(idle)
    } finally {
      await store.close()
    }
  }, 120_000)
})
