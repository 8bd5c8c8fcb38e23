import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { build } from 'vite'

// The command is tested as shipped: src/reference-service/bin.ts bundled for Node, run as a process.
const root = resolve(import.meta.dirname, '../../..')
const dir = mkdtempSync(join(tmpdir(), 'callsight-service-cli-'))
const entry = join(dir, 'service.mjs')

beforeAll(async () => {
  await build({
    configFile: false,
    root,
    logLevel: 'silent',
    ssr: { noExternal: true },
    build: {
      ssr: join(root, 'src/reference-service/bin.ts'),
      outDir: dir,
      emptyOutDir: false,
      minify: false,
      rollupOptions: { output: { format: 'esm', entryFileNames: 'service.mjs' } }
    }
  })
}, 60_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function run(args: string[]): Promise<{ child: ChildProcessWithoutNullStreams; lines: string[] }> {
  const child = spawn(process.execPath, [entry, ...args], { stdio: 'pipe' })
  const lines: string[] = []
  return new Promise((resolveRun, reject) => {
    const rl = createInterface({ input: child.stdout })
    rl.on('line', (l) => {
      lines.push(l)
      if (lines.length === 2) resolveRun({ child, lines })
    })
    child.on('exit', (code) => reject(new Error(`exited ${code}`)))
  })
}

describe('npm run service', () => {
  it('prints the base URL first and the admin key second, dumps every call, serves, and stops on SIGTERM', async () => {
    const dump = join(dir, 'calls.ndjson')
    const { child, lines } = await run([
      '--calls',
      '300',
      '--seed',
      '3',
      '--from',
      '2025-01-01T00:00:00Z',
      '--to',
      '2025-01-31T00:00:00Z',
      '--dump',
      dump,
      '--dense',
      '2025-01-15T10:00:00Z:25',
      '--quiet'
    ])
    try {
      expect(lines[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(lines[1]).toMatch(/^x-admin-key: \S{16,}$/)
      const records = readFileSync(dump, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(records).toHaveLength(325)
      expect(Object.keys(records[0]!)).toEqual(
        expect.arrayContaining(['callId', 'callDate', 'title', 'summary', 'analysis', 'type', 'direction', 'result', 'hasNewRequest'])
      )
      const token = (await (
        await fetch(`${lines[0]}/api/public/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"username":"demo","password":"demo"}'
        })
      ).json()) as { access_token: string }
      const res = await fetch(`${lines[0]}/api/app/public-calls/get-calls`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token.access_token}` },
        body: '{"results":null,"take":0}'
      })
      expect(((await res.json()) as { totalCount: number }).totalCount).toBe(325)
      const stats = await fetch(`${lines[0]}/__admin/stats`, { headers: { 'x-admin-key': lines[1]!.slice('x-admin-key: '.length) } })
      expect(stats.status).toBe(200)
    } finally {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    }
  })

  it('answers bad flags with one clear line and exit code 2', () => {
    for (const [args, words] of [
      [['--calls', 'many'], '--calls'],
      [['--rate-limit', '60'], 'N/SECONDS'],
      [['--rate-window', 'round'], '--rate-window'],
      [['--rate-burst', '3'], '--rate-window bucket'],
      [['--rate-window', 'bucket', '--rate-burst', '0'], '--rate-burst'],
      [['--envelope', 'xml'], '--envelope'],
      [['--tz', 'Mars/Olympus'], '--tz'],
      [['--nope'], "'--nope'"]
    ] as const) {
      const r = spawnSync(process.execPath, [entry, ...args], { encoding: 'utf8' })
      expect(r.status).toBe(2)
      expect(r.stdout).toBe('')
      const out = r.stderr.trim().split('\n')
      expect(out).toHaveLength(1)
      expect(out[0]).toContain(words)
    }
  })
})
