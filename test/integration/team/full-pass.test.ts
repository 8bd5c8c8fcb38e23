import { describe, expect, it } from 'vitest'
import { silentLogger, systemClock } from '../../../src/core/platform/node'
import { SyncEngine } from '../../../src/core/sync'
import { PgSyncStore, scopeAt, TeamWorker, WorkerScopeConfig } from '../../../src/core/team'
import { fullPassKey, FullPassState } from '../../../src/core/team/worker-full-pass'
import { until } from '../../support/until'
import { freshDatabase, FROM, pgContent, signedInSession, useClusterAndService } from './helpers'

// The worker's incremental cycle re-reads only the look-back. Calls the service changes long
// after it (here: calls of January, the look-back an hour before now) reach the team cache
// only through the slow full pass, which re-reads a slice of the range each cycle.

const team = useClusterAndService({ calls: 3000, seed: 17 }, 'callsight-full-pass-')
const SCOPE = WorkerScopeConfig.parse({ name: 'everything', from: FROM.replace('Z', '+00:00'), results: 'all' })

describe('the slow full pass', () => {
  it('brings calls changed before the look-back into the team cache within a few cycles', async () => {
    const database = await freshDatabase(team.cluster)
    const url = team.cluster.urlFor({ database })
    const { session } = await signedInSession(team.service)
    const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
    const worker = (fullPassEveryMs: number | null, intervalMs: number): TeamWorker =>
      new TeamWorker({
        store,
        source: session,
        clock: systemClock,
        logger: silentLogger,
        rateLimit: { requests: 600, perSeconds: 1 },
        lookbackHours: 1,
        intervalMs,
        scopes: [SCOPE],
        workerName: 'full-pass-test',
        fullPassEveryMs
      })
    const summaries = async (ids: string[]): Promise<Map<string, string>> => {
      const calls = (await pgContent(url, 'acme')).calls
      return new Map(ids.map((id) => [id, calls.get(id)!.summary]))
    }
    try {
      expect((await worker(null, 60_000).run(new AbortController().signal, { once: true })).failures).toBe(0)
      const updated = team.service.admin.updateCalls(40)
      const want = new Map(team.service.admin.dump().map((d) => [d.callId, d.summary]))
      const stale = async (): Promise<string[]> => [...(await summaries(updated))].filter(([id, s]) => s !== want.get(id)).map(([id]) => id)
      expect(await stale()).toHaveLength(40)

      // Without the full pass an incremental cycle leaves them as they were.
      expect((await worker(null, 60_000).run(new AbortController().signal, { once: true })).failures).toBe(0)
      expect(await stale()).toHaveLength(40)

      // With it (the whole range once every 4 s, a cycle a second): a slice a cycle.
      const stop = new AbortController()
      const running = worker(4000, 1000).run(stop.signal)
      const key = SyncEngine.keyOf(scopeAt(SCOPE, Date.now()))
      const from = Date.parse(FROM)
      const cursors: number[] = []
      try {
        await until(
          async () => {
            const state = FullPassState.safeParse(await store.getCheckpoint(fullPassKey(key)))
            if (state.success && cursors.at(-1) !== state.data.cursor) cursors.push(state.data.cursor)
            return state.success && state.data.cursor <= from ? true : undefined
          },
          120_000,
          200
        )
      } finally {
        stop.abort()
        await running
      }
      expect(await stale()).toEqual([])
      // Spread over cycles: several slices, each moving the cursor back.
      expect(cursors.length).toBeGreaterThanOrEqual(3)
      for (let i = 1; i < cursors.length; i++) expect(cursors[i]!).toBeLessThan(cursors[i - 1]!)
    } finally {
      await store.close()
    }
  }, 300_000)
})
