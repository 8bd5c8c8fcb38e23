import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SyncProgress } from '../../../src/shared/domain'
import { startService, type RunningService } from '../../../src/reference-service'
import { accountDbPath } from '../../../src/core/app/account-runtime'
import { createTestApp } from '../../support/app-fixture'
import { routerClient } from '../../support/router-client'
import { until } from '../../support/until'

/**
 * The sync screen's panel shows the active account's last run. It used to live in memory only
 * (lost at a restart); the run's last progress is now kept in its account's cache (sync_runs),
 * so after a restart each account shows its own last run as it ended: result, counts, time
 * taken, error.
 */
const DAY = 86_400_000
const ENDED = ['done', 'failed', 'cancelled']

describe("the sync screen's last run across a restart", () => {
  let quick: RunningService
  let slow: RunningService
  const cipherKey = randomBytes(32)
  let userData = ''

  beforeAll(async () => {
    quick = await startService({ calls: 300, seed: 11, rateLimit: { requests: 6000, perSeconds: 60 }, quiet: true })
    // Each request 80 ms late: its sync is still running when it is cancelled.
    slow = await startService({
      calls: 2_000,
      seed: 12,
      rateLimit: { requests: 6000, perSeconds: 60 },
      faults: { latencyMs: 80 },
      quiet: true
    })
  })
  afterAll(async () => {
    await quick.stop()
    await slow.stop()
    if (userData) rmSync(userData, { recursive: true, force: true })
  })

  it("shows each account's own last run after the app restarts", async () => {
    const first = createTestApp({ cipherKey })
    userData = first.userData
    const c1 = routerClient(first.controller.handlers)
    const ended = (runId: string): Promise<SyncProgress> =>
      until(() =>
        first.events
          .filter((e) => e.event === 'sync.progress')
          .map((e) => e.payload as SyncProgress)
          .find((p) => p.runId === runId && ENDED.includes(p.phase))
      )
    const scope = { from: Date.now() - 95 * DAY, to: Date.now() + DAY, results: 'all' as const, includeAnalysis: true }

    const a = await c1.call('session.signIn', { baseUrl: quick.url, username: 'demo', password: 'demo' })
    const done = await ended((await c1.call('sync.start', { scope, mode: 'full' })).runId)
    expect(done).toMatchObject({ phase: 'done', stored: 300 })

    const b = await c1.call('session.signIn', { baseUrl: slow.url, username: 'demo', password: 'demo' })
    const { runId } = await c1.call('sync.start', { scope, mode: 'full' })
    await until(() => first.events.find((e) => e.event === 'sync.progress' && (e.payload as SyncProgress).stored > 0))
    await c1.call('sync.cancel', { runId })
    const cancelled = await ended(runId)
    expect(cancelled.phase).toBe('cancelled')
    expect(cancelled.error?.code).toBe('Cancelled')
    expect((await c1.call('sync.scopes', {})).last).toEqual(cancelled)
    await first.controller.dispose()

    // The rows themselves: each run's panel is in its own account's file.
    for (const [id, run] of [
      [a.account!.id, done],
      [b.account!.id, cancelled]
    ] as const) {
      const db = new Database(accountDbPath(userData, id), { readonly: true })
      try {
        const kept = db.prepare('SELECT id, progress FROM sync_runs').all() as Array<{ id: string; progress: string }>
        expect(kept.map((r) => [r.id, JSON.parse(r.progress) as unknown])).toEqual([[run.runId, run]])
      } finally {
        db.close()
      }
    }

    const second = createTestApp({ userData, cipherKey })
    try {
      const c2 = routerClient(second.controller.handlers)
      // B was active when the app closed.
      const onB = await c2.call('sync.scopes', {})
      expect(onB.active).toBeNull()
      expect(onB.last).toEqual(cancelled)
      expect(onB.last?.elapsedSeconds).toBeGreaterThan(0)
      await c2.call('accounts.switch', { id: a.account!.id })
      const onA = await c2.call('sync.scopes', {})
      expect(onA.last).toEqual(done)
      expect(onA.last?.error).toBeUndefined()
    } finally {
      await second.controller.dispose()
    }
  })
})
