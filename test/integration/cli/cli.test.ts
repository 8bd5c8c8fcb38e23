import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runCli, spawnCli, syncArgs, useCliAndService } from './helpers'

const FROM = '2026-03-02T06:00:00Z'
const TO = '2026-03-02T18:00:00Z'

const env = useCliAndService(
  { calls: 1200, seed: 3, from: FROM, to: TO, tz: 'Europe/Istanbul', rateLimit: { requests: 600, perSeconds: 1 } },
  'callsight-cli-'
)
let db = ''

beforeAll(async () => {
  db = join(env.dir, 'cli.db')
  const r = await runCli(env.cli, syncArgs({ server: env.service.url, db, from: FROM, to: '2026-03-02T18:00:01Z', rateLimit: '600/1' }))
  if (r.code !== 0) throw new Error(`sync failed: ${r.stderr}`)
}, 120_000)

describe('callsight CLI', () => {
  it('documents the exit codes in --help', async () => {
    const r = await runCli(env.cli, ['--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/Exit codes:[\s\S]*3 +the user name or password was refused/)
    expect(r.stdout).toContain('130')
  })

  it('answers a bad flag with one line and exit code 2, never a stack trace', async () => {
    const r = await runCli(env.cli, ['search', '--db', db, '--limit', 'many'])
    expect(r.code).toBe(2)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
    expect(r.stderr).toContain('--limit')
    expect(r.stderr).not.toMatch(/\bat .*\(.*:\d+:\d+\)/)
    const unknown = await runCli(env.cli, ['sync', '--password', 'x'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("'--password'")
  })

  it('exits 3 on a refused password and does not print it', async () => {
    const r = await runCli(
      env.cli,
      ['sync', '--server', env.service.url, '--user', 'demo', '--db', join(env.dir, 'x.db'), '--from', FROM, '--to', TO],
      { CALLSIGHT_PASSWORD: 'wrong-secret-123' }
    )
    expect(r.code).toBe(3)
    expect(r.stderr + r.stdout).not.toContain('wrong-secret-123')
  })

  it('exits 2 without a password when there is no terminal to ask on', async () => {
    const r = await runCli(
      env.cli,
      ['sync', '--server', env.service.url, '--user', 'demo', '--db', join(env.dir, 'y.db'), '--from', FROM, '--to', TO],
      { CALLSIGHT_PASSWORD: '' }
    )
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('CALLSIGHT_PASSWORD')
  })

  it('search --json prints the total and items with callId, callDate, title, summary and analysis', async () => {
    const r = await runCli(env.cli, ['search', '--db', db, '--results', 'all', '--limit', '5', '--sort', 'date', '--json'])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as { total: number; items: Array<Record<string, unknown>> }
    const dump = env.service.admin.dump()
    expect(out.total).toBe(dump.length)
    expect(out.items).toHaveLength(5)
    const first = [...dump].sort((a, b) => Date.parse(a.callDate) - Date.parse(b.callDate) || (a.callId < b.callId ? -1 : 1))[0]!
    expect(out.items[0]).toEqual({
      callId: first.callId,
      callDate: first.callDate,
      title: first.title,
      summary: first.summary,
      analysis: first.analysis
    })
  })

  it('ends after a large --json has reached a slow reader whole', async () => {
    // The CLI exits as soon as its work is done (not when idle connections time out): the
    // output still in the pipe must get there first. The reader waits before reading, so the
    // pipe is full when the command finishes.
    const { child, done } = spawnCli(env.cli, ['search', '--db', db, '--results', 'all', '--limit', '1000', '--json'])
    child.stdout!.pause()
    await new Promise((r) => setTimeout(r, 1500))
    child.stdout!.resume()
    const r = await done
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout.length).toBeGreaterThan(256 * 1024)
    const out = JSON.parse(r.stdout) as { items: unknown[] }
    expect(out.items).toHaveLength(1000)
  })

  it('search filters by text and analysis, with --where', async () => {
    const dump = env.service.admin.dump()
    const sample = dump.find((d) => d.analysis.length > 0)!
    const item = sample.analysis[0]!
    const r = await runCli(env.cli, [
      'search',
      '--db',
      db,
      '--results',
      'all',
      '--where',
      `${item.key}=${item.value}`,
      '--limit',
      '10000',
      '--json'
    ])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as { total: number; items: Array<{ callId: string }> }
    const want = dump.filter((d) => d.analysis.some((a) => a.key === item.key && a.value === item.value)).map((d) => d.callId)
    expect(out.total).toBe(want.length)
    expect(new Set(out.items.map((i) => i.callId))).toEqual(new Set(want))
  })

  it('export writes the file and says where and how many', async () => {
    const out = join(env.dir, 'calls.ndjson')
    const r = await runCli(env.cli, [
      'export',
      '--db',
      db,
      '--results',
      'all',
      '--format',
      'ndjson',
      '--out',
      out,
      '--from',
      '2026-03-02T06:00:00Z',
      '--to',
      '2026-03-02T09:00:00Z',
      '--zone',
      'Europe/Istanbul'
    ])
    expect(r.code, r.stderr).toBe(0)
    const want = env.service.admin.dump().filter((d) => Date.parse(d.callDate) < Date.parse('2026-03-02T09:00:00Z')).length
    expect(r.stdout).toContain(out)
    expect(r.stdout).toContain(`Wrote ${want} call(s)`)
    expect(existsSync(out)).toBe(true)
    const lines = readFileSync(out, 'utf8').trim().split('\n')
    expect(lines.length).toBeGreaterThanOrEqual(want)
  })

  it('remote-search prints one page from the service', async () => {
    const r = await runCli(env.cli, [
      'remote-search',
      '--server',
      env.service.url,
      '--user',
      'demo',
      '--from',
      FROM,
      '--to',
      TO,
      '--results',
      'all',
      '--take',
      '7',
      '--zone',
      'Europe/Istanbul',
      '--json'
    ])
    expect(r.code, r.stderr).toBe(0)
    const out = JSON.parse(r.stdout) as { total: number; items: unknown[] }
    expect(out.items).toHaveLength(7)
    expect(out.total).toBe(env.service.admin.dump().length)
  })

  it('exits 9 for a call type the service does not know', async () => {
    const r = await runCli(env.cli, [
      'sync',
      '--server',
      env.service.url,
      '--user',
      'demo',
      '--db',
      join(env.dir, 'z.db'),
      '--from',
      FROM,
      '--to',
      TO,
      '--types',
      'NoSuchType',
      '--zone',
      'Europe/Istanbul',
      '--rate-limit',
      '600/1'
    ])
    expect(r.code).toBe(9)
    expect(r.stderr).toContain('NoSuchType')
  })
})
