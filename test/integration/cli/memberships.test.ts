import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli'
import type { Io } from '../../../src/cli/output'
import { startService, type RunningService } from '../../../src/reference-service'

// `callsight sync --memberships` learns the filters after a sync of everything; a search by
// type or direction is then covered. Over cached calls, the warning of a search a pass
// answers suggests the pass, not a full sync of the type, with every value shell-quoted.

const ZONE = 'Europe/Istanbul'
let service: RunningService
let dir = ''
const saved = process.env.CALLSIGHT_PASSWORD

beforeAll(async () => {
  service = await startService({
    port: 0,
    calls: 3000,
    seed: 9,
    from: '2026-03-01T21:00:00Z',
    to: '2026-03-02T21:00:00Z',
    tz: ZONE,
    rateLimit: { requests: 600, perSeconds: 1 },
    quiet: true
  })
  dir = mkdtempSync(join(tmpdir(), 'callsight-memberships-'))
  process.env.CALLSIGHT_PASSWORD = 'demo'
}, 60_000)

afterAll(async () => {
  if (saved === undefined) delete process.env.CALLSIGHT_PASSWORD
  else process.env.CALLSIGHT_PASSWORD = saved
  await service?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function run(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), tty: false }
  const code = await main(argv, io)
  return { code, out, err }
}

const sync = (db: string, ...extra: string[]) =>
  run(
    'sync',
    '--server',
    service.url,
    '--user',
    'demo',
    '--db',
    db,
    '--from',
    '2026-03-02',
    '--to',
    '2026-03-02',
    '--zone',
    ZONE,
    '--rate-limit',
    '600/1',
    ...extra
  )
const search = (db: string, ...extra: string[]) =>
  run('search', '--db', db, '--from', '2026-03-02', '--to', '2026-03-02', '--zone', ZONE, '--limit', '1', ...extra)

describe('callsight sync --memberships', () => {
  it('prints the estimate, runs the passes after the sync, and type and direction searches are covered', async () => {
    const db = join(dir, 'all.db')
    const r = await sync(db, '--results', 'all', '--analysis', '--memberships', '--directions', '1=in,2=out')
    expect(r.code).toBe(0)
    expect(r.err).toMatch(/Membership passes .*: 4 passes, about \d+ requests, \d+ minute\(s\)/)
    expect(r.out).toMatch(/Memberships done: 4 of 4 passes, \d+ requests/)
    // No catalog yet: the sync of everything learnt no type; the passes learn answered,
    // new requests and both directions.
    for (const args of [[], ['--direction', '2'], ['--has-new-request', 'true', '--results', 'all']]) {
      const s = await search(db, ...args, '--strict')
      expect({ args, code: s.code, err: s.err }).toEqual({ args, code: 0, err: '' })
    }
  }, 120_000)

  it('refuses passes without a sync of everything, and over a range the cache does not hold', async () => {
    const db = join(dir, 'none.db')
    expect((await sync(db, '--types', 'Refund', '--memberships')).code).toBe(2)
    const only = await sync(db, '--results', 'all', '--memberships-only')
    expect(only.code).toBe(2)
    expect(only.err).toMatch(/No sync of everything/)
  })

  it('over cached calls, a search the passes answer suggests the passes, quoted for a shell', async () => {
    const db = join(dir, 'my calls.db')
    expect((await sync(db, '--results', 'all')).code).toBe(0)
    const s = await search(db, '--direction', '3')
    expect(s.err).toMatch(/not synced: direction 3, answered only/)
    expect(s.err).toContain(
      `learn the filter (no analysis, 500 calls a request): callsight sync --server URL --user NAME --db '${db}' --from 2026-03-02T00:00:00+03:00 --to 2026-03-03T00:00:00+03:00 --results all --memberships-only --directions 1,2,3`
    )
    // The suggested command fills it.
    const passes = await sync(db, '--results', 'all', '--memberships-only', '--directions', '1,2,3')
    expect(passes.code).toBe(0)
    expect((await search(db, '--direction', '3', '--strict')).code).toBe(0)
    // An analysis filter is not what the passes learn: that still takes a sync with analysis.
    const analysed = await search(db, '--where', 'sentiment=Negative')
    expect(analysed.err).toMatch(/Sync it: callsight sync .*--analysis/)
  }, 120_000)
})
