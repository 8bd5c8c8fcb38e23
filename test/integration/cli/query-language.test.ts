import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseNumeric } from '../../../src/core/cache'
import type { CallRecord } from '../../../src/shared/domain'
import { analyzeQuery, CallText, evaluate } from '../../../src/shared/query'
import { budget } from '../../support/budget'
import { buildFixture } from '../../unit/core/search/fixture'
import { FIXTURE_KEYS as KEYS, LANGUAGE_CASES } from '../../unit/core/search/query-cases'
import { buildCli, removeBuild } from './build-cli'
import { runCli } from './helpers'

let cli = ''
let dir = ''
let db = ''
let stored: Array<{ record: CallRecord; text: CallText }> = []

beforeAll(async () => {
  cli = await buildCli()
  const fx = buildFixture(600, 17)
  stored = fx.records.map((r) => fx.cache.getCall(r.callId)!).map((record) => ({ record, text: new CallText(record) }))
  fx.cache.close()
  dir = fx.dir
  db = join(dir, 'cache.db')
}, 120_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  removeBuild(cli)
})

describe('callsight search speaks the same language as the app', () => {
  // One CLI process per case, each case a test with its own limit: a process takes 1-1.5 s to
  // start quiet and 3.4-6.5 s at load 13, and the 41 cases ran past the one 120 s they shared.
  it.each(LANGUAGE_CASES)('gives the ids of the brute-force evaluation: %s', budget(3_000), async (label, text) => {
    const { node } = analyzeQuery(text, { keys: KEYS })
    const want = stored.filter((s) => node === null || evaluate(node, s.text, parseNumeric)).map((s) => s.record.callId)
    // Text that starts with a minus goes after `--`, as for any command line program.
    const r = await runCli(cli, ['search', '--db', db, '--results', 'all', '--limit', '10000', '--json', '--', text])
    expect(r.code, `${label}: ${r.stderr}`).toBe(0)
    const got = JSON.parse(r.stdout) as { total: number; items: Array<{ callId: string }> }
    expect(got.items.map((i) => i.callId).sort(), label).toEqual(want.sort())
    expect(got.total, label).toBe(want.length)
  })

  it('underlines a bad query and exits 2; --where still works beside the text', budget(4 * 3_000), async () => {
    const bad = await runCli(cli, ['search', '--db', db, '--results', 'all', 'fatura nope:x'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('no field or analysis key is called "nope"')
    expect(bad.stderr).toContain('fatura nope:x\n         ^^^^')
    const open = await runCli(cli, ['search', '--db', db, '--results', 'all', 'fatura (iade'])
    expect(open.code).toBe(2)
    expect(open.stderr).toContain('fatura (iade\n         ^')
    const where = await runCli(cli, [
      'search',
      '--db',
      db,
      '--results',
      'all',
      'fatura',
      '--where',
      'sentiment=OLUMSUZ',
      '--limit',
      '10000',
      '--json'
    ])
    const both = await runCli(cli, ['search', '--db', db, '--results', 'all', 'fatura duygu:olumsuz', '--limit', '10000', '--json'])
    expect(where.code).toBe(0)
    const total = (JSON.parse(where.stdout) as { total: number }).total
    expect(total).toBeGreaterThan(0)
    expect(total).toBe((JSON.parse(both.stdout) as { total: number }).total)
  })

  it('says with --explain how the first page was served, for a person and in --json', budget(2 * 3_000), async () => {
    const human = await runCli(cli, ['search', '--db', db, '--results', 'all', '--explain', 'fatura'])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stderr).toMatch(/^plan: [a-z-]+.*, in \d+\.\d ms\nSQL rule: [a-z-]+; estimate \d+ of 600 calls\nchosen from:\n {2}sql: /)
    const json = await runCli(cli, ['search', '--db', db, '--results', 'all', '--explain', '--json', 'fatura'])
    expect(json.code, json.stderr).toBe(0)
    const got = JSON.parse(json.stdout) as {
      explain: { plan: string; total: number; served: { plan: string; tried: string[]; inputs: Record<string, unknown>; ms: number } }
    }
    expect(got.explain.total).toBe(600)
    expect(got.explain.served.inputs.sql).toBe(got.explain.plan)
    expect(human.stderr.startsWith(`plan: ${got.explain.served.plan}`)).toBe(true)
    expect(got.explain.served.ms).toBeGreaterThanOrEqual(0)
  })
})
