/**
 * CLI start-up: wall time of whole `node out/node/cli.mjs …` processes, as a user waits for
 * them. The CLI loads a command's code only when that command runs (src/cli/index.ts); the
 * baseline is the same build with every command's chunk loaded before the entry (node
 * --import), which is what the entry's static imports did before. Bare `node -e 0` is the floor.
 * `<command> --help` loads no command code (its text is in src/cli/help.ts); before, it loaded
 * that command's chunk: measured too (the command's own chunk given with --import), in the notes.
 * Each round runs every case once, in turn, so a pause of this shared machine hits all alike.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { openCache, type WritePageInput } from '../src/core/cache'
import { makeCall, prng } from './search-data'
import { median, percentile, type BenchFn, type BenchRow } from './types'

const SCOPE = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }

/** The chunks the entry imports on demand: every command's code. */
function commandChunks(cli: string): string[] {
  const src = readFileSync(cli, 'utf8')
  const chunks = [...src.matchAll(/import\("(\.\/chunks\/[^"]+\.mjs)"\)/g)].map((m) => join(cli, '..', m[1]!))
  return [...new Set(chunks)]
}

/** Milliseconds from spawn to exit; fails on an unexpected exit code. */
function timed(args: string[], want: number): number {
  const t = performance.now()
  const r = spawnSync(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } })
  const ms = performance.now() - t
  if (r.status !== want) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr.toString().slice(0, 300)}`)
  return ms
}

export const run: BenchFn = async ({ workDir, quick, log }) => {
  const cli = join(process.cwd(), 'out', 'node', 'cli.mjs')
  if (!existsSync(cli)) throw new Error('out/node/cli.mjs is missing: run npm run build first')
  const eager = commandChunks(cli).flatMap((c) => ['--import', c])
  log(`${eager.length / 2} command chunks loaded up front by the baseline`)

  // A small cache for a real command: 2,000 calls.
  const db = join(workDir, 'small.db')
  const cache = openCache(db, { checkpointer: false })
  try {
    cache.ensureScope('all', SCOPE)
    const rnd = prng(7)
    const pages: WritePageInput[] = []
    for (let i = 0; i < 2000; i += 100) {
      const records = Array.from({ length: 100 }, (_, k) => makeCall(i + k, 2000, rnd).record)
      pages.push({ scopeKey: 'all', records, includeAnalysis: true, checkpoint: null })
    }
    cache.writePages(pages)
  } finally {
    cache.close()
  }

  const cases: Array<{ name: string; args: string[]; exit: number }> = [
    { name: '--help', args: ['--help'], exit: 0 },
    { name: '--version', args: ['--version'], exit: 0 },
    { name: 'search --help', args: ['search', '--help'], exit: 0 },
    { name: 'sync --help', args: ['sync', '--help'], exit: 0 },
    { name: 'pull --help', args: ['pull', '--help'], exit: 0 },
    { name: 'search (2,000-call cache)', args: ['search', '--db', db, 'müşteri', '--limit', '5', '--json'], exit: 0 },
    { name: 'types list', args: ['types', 'list', '--db', db], exit: 0 }
  ]
  const rounds = quick ? 5 : 10
  // A command's --help as it was before help.ts: with that command's chunk loaded.
  const own = cases.map((c) => {
    if (c.args[1] !== '--help') return null
    const chunk = commandChunks(cli).find((f) => new RegExp(`/${c.args[0]}-[^/]+\\.mjs$`).test(f))
    if (!chunk) throw new Error(`no chunk for ${c.args[0]} in ${cli}`)
    return ['--import', chunk]
  })
  const lazy = cases.map(() => [] as number[])
  const old = cases.map(() => [] as number[])
  const ownChunk = cases.map(() => [] as number[])
  const floor: number[] = []
  for (let r = 0; r < rounds; r++) {
    floor.push(timed(['-e', '0'], 0))
    cases.forEach((c, i) => {
      lazy[i]!.push(timed([cli, ...c.args], c.exit))
      old[i]!.push(timed([...eager, cli, ...c.args], c.exit))
      const withOwn = own[i]
      if (withOwn) ownChunk[i]!.push(timed([...withOwn, cli, ...c.args], c.exit))
    })
  }
  const rows: BenchRow[] = cases.map((c, i) => {
    const value = median(lazy[i]!)
    const baseline = median(old[i]!)
    return {
      metric: `callsight ${c.name}: median wall time`,
      value,
      unit: 'ms',
      baseline,
      ratio: baseline / value,
      note:
        `${rounds} runs; p95 ${percentile(lazy[i]!, 95).toFixed(0)} ms (every command loaded: ${percentile(old[i]!, 95).toFixed(0)}); ratio = baseline / value` +
        (own[i]
          ? `; with the command's own chunk loaded (before help.ts): median ${median(ownChunk[i]!).toFixed(0)} ms, p95 ${percentile(ownChunk[i]!, 95).toFixed(0)}`
          : '')
    }
  })
  rows.push({ metric: 'node -e 0: median wall time (the floor)', value: median(floor), unit: 'ms', note: `${rounds} runs` })
  return { name: 'cli-startup', rows }
}
