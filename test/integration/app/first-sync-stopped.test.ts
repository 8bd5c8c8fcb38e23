import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SyncProgress } from '../../../src/shared/domain'
import { startService, type RunningService } from '../../../src/reference-service'
import { createTestApp } from '../../support/app-fixture'
import { routerClient } from '../../support/router-client'
import { until } from '../../support/until'

/**
 * A first sync cancelled part way: no pass finished, so the scope has no coverage and the
 * cache no last sync. The sync screen still says what is stored (the stretch the checkpoint
 * knows) and the status bar when the run stopped, instead of "—" and "never synced".
 */
const DAY = 86_400_000

describe('a cancelled first sync', () => {
  let service: RunningService
  let userData = ''

  beforeAll(async () => {
    // Each request 80 ms late: the run is still going when it is cancelled.
    service = await startService({
      calls: 2_000,
      seed: 21,
      rateLimit: { requests: 6000, perSeconds: 60 },
      faults: { latencyMs: 80 },
      quiet: true
    })
  })
  afterAll(async () => {
    await service.stop()
    if (userData) rmSync(userData, { recursive: true, force: true })
  })

  it('shows the stretch synced and when it stopped', async () => {
    const app = createTestApp()
    userData = app.userData
    const c = routerClient(app.controller.handlers)
    try {
      await c.call('session.signIn', { baseUrl: service.url, username: 'demo', password: 'demo' })
      const scope = { from: Date.now() - 60 * DAY, to: Date.now(), results: 'all' as const, includeAnalysis: false }
      const startedAt = Date.now()
      const { runId } = await c.call('sync.start', { scope, mode: 'full' })
      const progress = (): SyncProgress[] => app.events.filter((e) => e.event === 'sync.progress').map((e) => e.payload as SyncProgress)
      await until(() => progress().find((p) => p.runId === runId && p.stored >= 200))
      await c.call('sync.cancel', { runId })
      await until(() => progress().find((p) => p.runId === runId && p.phase === 'cancelled'))

      const info = await c.call('cache.info', {})
      expect(info.lastSyncAt).toBeNull()
      expect(info.calls).toBeGreaterThanOrEqual(200)
      expect(info.calls).toBeLessThan(2_000)
      expect(info.stoppedAt).toEqual(expect.any(Number))
      expect(info.stoppedAt!).toBeGreaterThanOrEqual(startedAt)

      const { scopes } = await c.call('sync.scopes', {})
      expect(scopes).toHaveLength(1)
      const s = scopes[0]!
      expect(s.coveredFrom).toBeNull()
      // Newest first: from where it stopped up to the range's end.
      expect(s.partialTo).toBeGreaterThanOrEqual(scope.to - 1000)
      expect(s.partialFrom).toBeGreaterThan(scope.from)
      expect(s.partialFrom!).toBeLessThan(s.partialTo!)
      // Every call of that stretch is in the cache: the service agrees on the count.
      const remote = await c.call('remote.search', {
        query: { from: s.partialFrom! + 1000, to: s.partialTo! },
        skip: 0,
        take: 1,
        includeAnalysis: false
      })
      expect(remote.totalCount).not.toBeNull()
      expect(remote.totalCount!).toBeLessThanOrEqual(info.calls)
    } finally {
      await app.controller.dispose()
    }
  })
})
