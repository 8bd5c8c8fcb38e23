import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type { CallRecord } from '../../../src/shared/domain'
import type { ChannelName } from '../../../src/shared/ipc/names'
import { contract, type Request, type Response } from '../../../src/shared/ipc/contract'
import type { TeamPullProgress, TeamSchedule } from '../../../src/shared/team'
import { createPool, PgSyncStore, resetGeneration, teamInit } from '../../../src/core/team'
import { ManualClock } from '../../../src/core/platform/manual-clock'
import { createTestApp, type TestApp } from '../../support/app-fixture'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'

// The app pulls from the team cache on its own: with the app's clock in the test's hands, two
// scheduled pulls (five minutes apart, the default) against a real PostgreSQL bring a change
// the worker's store wrote between them, and the schedule says "as of" and "next" right.

const MIN = 60_000
const ALL = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }

let cluster: PgCluster
let store: PgSyncStore
let app: TestApp
const clock = new ManualClock(Date.UTC(2026, 10, 29, 9))

function record(i: number, title: string): CallRecord {
  const at = Date.UTC(2026, 10, 1) + i * 60_000
  return {
    callId: `S${String(i).padStart(5, '0')}`,
    callAt: at,
    callDate: new Date(at).toISOString().slice(0, 19) + 'Z',
    title,
    summary: `görüşme numara ${i}`,
    analysis: [{ key: 'sentiment', friendlyName: 'Duygu', value: i % 2 ? 'olumlu' : 'olumsuz' }],
    extra: {}
  }
}

beforeAll(async () => {
  cluster = await startPgCluster({ settings: FAST_TEST_SETTINGS })
  await cluster.sql('CREATE DATABASE team')
  const pool = createPool({ url: cluster.urlFor({ database: 'team' }), schema: 'acme' })
  await teamInit({
    pool,
    schema: 'acme',
    writerRole: 'acme_writer',
    readerRole: 'acme_reader',
    writerPassword: 'w-pw',
    readerPassword: 'reader-pw-1'
  })
  await pool.end()
  store = await PgSyncStore.open({ url: cluster.urlFor({ database: 'team', user: 'acme_writer', password: 'w-pw' }), schema: 'acme' })
  await store.ensureScope('all', ALL)
  await store.writePages([
    { scopeKey: 'all', records: Array.from({ length: 200 }, (_, i) => record(i, 'fatura sorusu')), includeAnalysis: true, checkpoint: null }
  ])
  app = createTestApp({ clock })
}, 120_000)

afterAll(async () => {
  await app?.close()
  await store?.close()
  await cluster?.stop()
})

async function call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
  const parsed = contract[channel].request.parse(request)
  const handler = app.controller.handlers[channel] as (r: unknown, ctx: { senderId: number }) => Promise<unknown>
  return contract[channel].response.parse(await handler(parsed, { senderId: 1 })) as Response<C>
}

const pulls = (): TeamPullProgress[] =>
  app.events
    .filter((e) => e.event === 'team.progress')
    .map((e) => e.payload as TeamPullProgress)
    .filter((p) => p.phase !== 'pulling')

/** Moves the app's clock on, then waits (real time, bounded) for the scheduled pull it starts to end. */
async function nextScheduledPull(minutes: number): Promise<TeamPullProgress> {
  const before = pulls().length
  await clock.advance(minutes * MIN)
  const end = Date.now() + 60_000
  while (Date.now() < end && pulls().length === before) await new Promise((r) => setTimeout(r, 25))
  const p = pulls()
  expect(p.length).toBe(before + 1)
  return p[p.length - 1]!
}

describe('the app pulls from the team cache on a schedule', () => {
  it(
    'two scheduled pulls bring what the worker wrote between them, and the schedule shows as of and next',
    { timeout: 120_000 },
    async () => {
      await call('team.connect', {
        team: { url: `postgres://acme_reader@127.0.0.1:${cluster.port}/team`, schema: 'acme', sslMode: 'disable', sslRootCert: null },
        password: 'reader-pw-1',
        baseUrl: 'http://127.0.0.1:9',
        username: 'analyst'
      })
      expect((await call('settings.get', {})).team.pullEveryMinutes).toBe(5)
      // Nothing pulls before the interval has passed since connecting.
      await clock.advance(4 * MIN)
      await new Promise((r) => setTimeout(r, 200))
      expect(pulls()).toEqual([])

      const first = await nextScheduledPull(1.5)
      expect(first).toMatchObject({ phase: 'done', calls: 200 })
      const firstAt = clock.now()
      expect((await call('search.count', { query: { text: 'fatura', results: 'all' } })).total).toBe(200)

      // The worker writes a change: ten calls get a new title.
      await store.writePages([
        {
          scopeKey: 'all',
          records: Array.from({ length: 10 }, (_, i) => record(i, 'iade talebi')),
          includeAnalysis: true,
          checkpoint: null
        }
      ])
      // Counted once the review work riding along is done (the live review sync may run beside it).
      await vi.waitFor(async () => {
        const status = await call('team.status', {})
        expect(status.schedule).toMatchObject({ everyMinutes: 5, lastSuccessAt: firstAt, nextAt: firstAt + 5 * MIN, failures: 0 })
      })

      const second = await nextScheduledPull(5)
      expect(second).toMatchObject({ phase: 'done', calls: 10 })
      expect((await call('search.count', { query: { text: 'iade', results: 'all' } })).total).toBe(10)
      expect((await call('search.count', { query: { text: 'fatura', results: 'all' } })).total).toBe(190)
      // The schedule counts a pull as ended once the review work that rides along with it is done too.
      await vi.waitFor(() => {
        const schedules = app.events.filter((e) => e.event === 'team.schedule').map((e) => e.payload as TeamSchedule)
        expect(schedules.at(-1)).toMatchObject({ lastSuccessAt: clock.now(), nextAt: clock.now() + 5 * MIN })
      })

      // 0 turns it off.
      await call('settings.update', { team: { pullEveryMinutes: 0 } })
      const n = pulls().length
      await clock.advance(30 * MIN)
      await new Promise((r) => setTimeout(r, 200))
      expect(pulls().length).toBe(n)
      expect((await call('team.status', {})).schedule.nextAt).toBeNull()
    }
  )

  it('a pull that starts over (the team cache reset) tells the app why, as a code it can translate', { timeout: 120_000 }, async () => {
    const owner = createPool({ url: cluster.urlFor({ database: 'team' }), schema: 'acme' })
    try {
      await resetGeneration(owner, 'acme')
    } finally {
      await owner.end()
    }
    const { runId } = await call('team.pull', {})
    const end = Date.now() + 60_000
    let last: TeamPullProgress | undefined
    while (Date.now() < end && !last) {
      last = pulls().find((p) => p.runId === runId)
      if (!last) await new Promise((r) => setTimeout(r, 25))
    }
    expect(last).toMatchObject({ phase: 'done', calls: 200, noticeCode: 'generation' })
    expect(last?.notice).toMatch(/restored from a backup or reset/)
    // Counted once the review work that rides along with the pull is done too.
    await vi.waitFor(async () => expect((await call('team.status', {})).schedule.lastSuccessAt).toBe(clock.now()))
  })
})
