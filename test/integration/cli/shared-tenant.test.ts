import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type RunningService } from '../../../src/service'
import type { SyncProgress } from '../../../src/shared/domain'
import { buildCli, removeBuild } from './build-cli'
import { runCli } from './helpers'

const FROM = '2026-03-02T06:00:00Z'
const TO = '2026-03-02T18:00:00Z'

let cli = ''
let service: RunningService
let dir = ''

beforeAll(async () => {
  cli = await buildCli()
  // The tenant's limit, time-scaled: 30 per 3 s for everyone together.
  service = await startService({
    port: 0,
    calls: 1_500,
    seed: 12,
    from: FROM,
    to: TO,
    tz: 'Europe/Istanbul',
    rateLimit: { requests: 30, perSeconds: 3 },
    quiet: true
  })
  dir = mkdtempSync(join(tmpdir(), 'callsight-cli-tenant-'))
}, 120_000)

afterAll(async () => {
  await service?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
  removeBuild(cli)
})

describe('two workstations of one tenant syncing at once', () => {
  it('each told the whole limit: both end with exactly the service set, through 429s if any', async () => {
    const run = (db: string) =>
      runCli(cli, [
        'sync',
        '--server',
        service.url,
        '--user',
        'demo',
        '--db',
        db,
        '--from',
        FROM,
        '--to',
        '2026-03-02T18:00:01Z',
        '--results',
        'all',
        '--zone',
        'Europe/Istanbul',
        '--analysis',
        '--rate-limit',
        '30/3',
        '--mode',
        'full',
        '--json'
      ])
    const dbs = [join(dir, 'a.db'), join(dir, 'b.db')]
    const results = await Promise.all(dbs.map(run))
    const want = new Set(service.admin.dump().map((d) => d.callId))
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
    const stats = service.admin.stats()
    expect(stats.byPath['/api/app/public-calls/get-calls']).toBeGreaterThanOrEqual(2 * 15)
  }, 120_000)
})
