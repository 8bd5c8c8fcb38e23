import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import type { SyncProgress } from '../../../src/shared/domain'
import { runCli, syncArgs, useCliAndService } from './helpers'

const FROM = '2026-03-02T06:00:00Z'
const TO = '2026-03-02T18:00:00Z'

// The tenant's limit, time-scaled: 30 per 3 s for everyone together.
const env = useCliAndService(
  { calls: 1_500, seed: 12, from: FROM, to: TO, tz: 'Europe/Istanbul', rateLimit: { requests: 30, perSeconds: 3 } },
  'callsight-cli-tenant-'
)

describe('two workstations of one tenant syncing at once', () => {
  it('each told the whole limit: both end with exactly the service set, through 429s if any', async () => {
    const run = (db: string) =>
      runCli(
        env.cli,
        syncArgs({ server: env.service.url, db, from: FROM, to: '2026-03-02T18:00:01Z', rateLimit: '30/3' }, '--mode', 'full', '--json')
      )
    const dbs = [join(env.dir, 'a.db'), join(env.dir, 'b.db')]
    const results = await Promise.all(dbs.map(run))
    const want = new Set(env.service.admin.dump().map((d) => d.callId))
    expect(want.size).toBe(1_500)
    for (const [i, r] of results.entries()) {
      expect(r.code, r.stderr).toBe(0)
      const final = JSON.parse(r.stdout.trim().split('\n').pop()!) as SyncProgress
      expect(final.phase).toBe('done')
      expect(final.pace?.limitPerMinute).toBe(600)
      const conn = new Database(dbs[i]!, { readonly: true })
      try {
        const ids = conn.prepare('SELECT call_id FROM calls').pluck().all() as string[]
        expect(ids.length).toBe(want.size)
        expect(new Set(ids)).toEqual(want)
      } finally {
        conn.close()
      }
    }
    // Both spent one budget: the service saw their requests against one limit.
    const stats = env.service.admin.stats()
    expect(stats.byPath['/api/app/public-calls/get-calls']).toBeGreaterThanOrEqual(2 * 15)
  }, 120_000)
})
