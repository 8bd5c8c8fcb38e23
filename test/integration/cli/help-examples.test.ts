import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli'
import { EXPORT_HELP } from '../../../src/cli/help'
import { REMOTE_SEARCH_HELP } from '../../../src/cli/help'
import { SEARCH_HELP } from '../../../src/cli/help'
import { SYNC_HELP } from '../../../src/cli/help'
import { TYPES_HELP } from '../../../src/cli/help'
import type { Io } from '../../../src/cli/output'
import { startService, type RunningService } from '../../../src/reference-service'
import { DEFAULT_CATALOG } from '../../../src/reference-service/config'

// Every example a person can copy — docs/cli.md's session and the "Examples:" of each
// command's --help — runs against the reference service and a real cache file, with the
// exit code it claims (0 unless a "# exit N" note says otherwise).

const EXAMPLE_SERVER = 'https://calls.example.com'

interface Example {
  source: string
  line: string
  exit: number
}

function parse(source: string, line: string): Example {
  const m = /^(.*?)\s*#\s*exit (\d+)\s*$/.exec(line)
  return { source, line: (m ? m[1]! : line).trim(), exit: m ? Number(m[2]) : 0 }
}

/** Lines starting with "callsight " under "Examples:" in a help text. */
function fromHelp(name: string, help: string): Example[] {
  const at = help.indexOf('\nExamples:\n')
  expect(at, `${name} --help has examples`).toBeGreaterThan(0)
  return help
    .slice(at)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.startsWith('callsight '))
    .map((l) => parse(`${name} --help`, l))
}

/** The sh block under "## Examples" in docs/cli.md. */
function fromDocs(): Example[] {
  const doc = readFileSync(join(__dirname, '../../../docs/cli.md'), 'utf8')
  const section = doc.slice(doc.indexOf('## Examples'))
  const block = /```sh\n([\s\S]*?)```/.exec(section)
  expect(block).not.toBeNull()
  return block![1]!
    .split('\n')
    .filter((l) => l.startsWith('callsight '))
    .map((l) => parse('docs/cli.md', l))
}

let service: RunningService
let dir = ''
const saved = process.env.CALLSIGHT_PASSWORD

beforeAll(async () => {
  service = await startService({
    port: 0,
    calls: 1500,
    seed: 5,
    from: '2026-03-01T21:00:00Z',
    to: '2026-03-02T21:00:00Z',
    tz: 'Europe/Istanbul',
    rateLimit: { requests: 600, perSeconds: 1 },
    quiet: true
  })
  dir = mkdtempSync(join(tmpdir(), 'callsight-examples-'))
  writeFileSync(join(dir, 'catalog.csv'), `Value,Description\n${DEFAULT_CATALOG.map((t) => `${t.Value},${t.Description}`).join('\n')}\n`)
  process.env.CALLSIGHT_PASSWORD = 'demo'
}, 60_000)

afterAll(async () => {
  if (saved === undefined) delete process.env.CALLSIGHT_PASSWORD
  else process.env.CALLSIGHT_PASSWORD = saved
  await service?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The example's words, with the example server and bare file names pointed at this run's. */
function argv(line: string): string[] {
  return line
    .split(/\s+/)
    .slice(1)
    .map((w) => (w === EXAMPLE_SERVER ? service.url : /^[\w-]+\.(db|csv|xlsx|json)$/.test(w) ? join(dir, w) : w))
}

async function run(e: Example): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const io: Io = { out: (t) => void (out += t), err: (t) => void (err += t), tty: false }
  const code = await main(argv(e.line), io)
  return { code, out, err }
}

describe('CLI examples', () => {
  it('every example in docs/cli.md and in each --help runs with the exit code it claims', async () => {
    // The docs' session first: it imports the catalog and syncs what the later lines read.
    const examples = [
      ...fromDocs(),
      ...fromHelp('sync', SYNC_HELP),
      ...fromHelp('types', TYPES_HELP),
      ...fromHelp('search', SEARCH_HELP),
      ...fromHelp('remote-search', REMOTE_SEARCH_HELP),
      ...fromHelp('export', EXPORT_HELP)
    ]
    expect(examples.length).toBeGreaterThanOrEqual(18)
    const outcomes: Record<string, Awaited<ReturnType<typeof run>>> = {}
    for (const e of examples) {
      const r = await run(e)
      outcomes[e.line] = r
      expect({ source: e.source, line: e.line, code: r.code, err: r.err }).toEqual({
        source: e.source,
        line: e.line,
        code: e.exit,
        err: expect.any(String)
      })
    }
    // What the session shows: the Description in capitals finds the synced type; a type no
    // scope answers warns once with the sync that fills it; --strict turns that into exit 12.
    const shouted = outcomes['callsight search --db calls.db --types ŞİKAYET --sort -date --limit 5']!
    expect(shouted.out).toMatch(/5 of \d+ call\(s\)/)
    const json = JSON.parse(
      outcomes[
        'callsight search --db calls.db --types Complaint --from 2026-03-02T09:00 --to 2026-03-02T12:00 --zone Europe/Istanbul --json'
      ]!.out
    ) as {
      total: number
      coverage: { complete: boolean }
    }
    expect(json.total).toBeGreaterThan(0)
    expect(json.coverage.complete).toBe(true)
    const refund = outcomes['callsight search --db calls.db --types Refund --from 2026-03-02 --to 2026-03-02 --zone Europe/Istanbul']!
    expect(refund.err.trim().split('\n')).toHaveLength(1)
    expect(refund.err).toMatch(
      /not synced: call type Refund \(İade Talebi\), answered only, 2026-03-02T00:00:00\+03:00 – 2026-03-03T00:00:00\+03:00/
    )
    expect(refund.err).toContain('callsight sync --server URL --user NAME')
    expect(refund.err).toContain('--types Refund')
    expect(outcomes['callsight search --db calls.db --types Kargo']!.err).toMatch(/Kargo.*Known: .*Complaint \(Şikayet\)/)
    // The type is synced, but without analysis: an analysis filter is not covered, and the fix says so.
    const analysed =
      outcomes[
        'callsight search --db calls.db --types Complaint --where sentiment=Negative --from 2026-03-02 --to 2026-03-02 --zone Europe/Istanbul --strict'
      ]!
    expect(analysed.err).toMatch(/not synced: call type Complaint \(Şikayet\), answered only, with analysis, 2026-03-02T00:00:00\+03:00/)
    expect(analysed.err).toMatch(/--types Complaint --analysis$/m)
    // A CSV has no header block: its query and coverage stand beside it, read back from the file.
    const sidecar = JSON.parse(readFileSync(join(dir, 'refunds.csv.meta.json'), 'utf8')) as {
      file: string
      format: string
      query: { kind: string; query: { callTypes: string[] } }
      coverage: { complete: boolean; missing: Array<{ callTypes: string[] }> }
    }
    expect(sidecar).toMatchObject({ file: 'refunds.csv', format: 'csv', query: { kind: 'query', query: { callTypes: ['Refund'] } } })
    expect(sidecar.coverage.complete).toBe(false)
    expect(sidecar.coverage.missing[0]!.callTypes).toEqual(['Refund'])
  }, 240_000)
})
