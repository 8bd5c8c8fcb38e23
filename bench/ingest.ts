/**
 * `npm run bench -- --only ingest`: the sync engine's ingest end to end (openCache, writePages
 * in pages of 100 stored 20 a transaction, the index written by each transaction, optimizeIndex
 * at the end), this tree's write path against an earlier commit's (bench/ingest-baseline.ts),
 * alternately in the same run, each ingest in a process of its own running the same driver
 * (bench/ingest-child.ts) on the same generated calls.
 * Reported: calls/s of wall clock and CPU-µs per call of the whole process, all threads (the
 * generation of the calls excluded from both), and the load average around each ingest; then
 * the answers of a set of searches on the two files, which must be equal (the bench fails
 * otherwise).
 * `CALLSIGHT_BENCH_INGEST_CALLS` sets the size (300,000; 100,000 with --quick);
 * `CALLSIGHT_BENCH_INGEST_ROUNDS` the rounds (2); `CALLSIGHT_BENCH_INGEST_BASE` the baseline
 * commit; `CALLSIGHT_BENCH_INGEST_BESIDE=1` adds the first team pull's path (the index built
 * on a worker thread beside the ingest, as a third way, for reference).
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { createSearch } from '../src/core/search'
import { SearchQuery, type SearchQueryInput } from '../src/shared/domain'
import { buildBaseline, DEFAULT_BASE } from './ingest-baseline'
import { COMMON_TERM, RARE_TERM } from './search-data'
import { median, type BenchFn, type BenchRow } from './types'

type Mode = 'old sync' | 'new sync' | 'index beside'

interface Run {
  wallS: number
  cpuUs: number
  /** Bytes the ingest's process wrote (0 where /proc/self/io is not there). */
  written: number
  load: number
}

/** The answers compared between the files: counts and the first page's call ids. */
const QUERIES: SearchQueryInput[] = [
  { text: COMMON_TERM },
  { text: 'iptal' },
  { text: RARE_TERM },
  { text: 'fatur' },
  { text: 'ka' },
  { text: 'i' },
  { text: `"${COMMON_TERM} ka"` },
  { text: 'iptal', sort: 'relevance' },
  { analysis: [{ kind: 'equals', key: 'sentiment', value: 'olumsuz' }] },
  { text: COMMON_TERM, analysis: [{ kind: 'range', key: 'score', min: 95, max: 100 }] }
]

function answers(file: string): string[] {
  const cache = openCache(file)
  try {
    const search = createSearch(cache)
    return QUERIES.map((input) => {
      const q = SearchQuery.parse(input)
      const page = search.page(q, 0, 100)
      return JSON.stringify([search.count(q), page.rows.map((c) => c.callId)])
    })
  } finally {
    cache.close()
  }
}

function ingestOnce(entry: string, file: string, n: number, mode: Mode): Run {
  const load0 = loadavg()[0]!
  const out = execFileSync(process.execPath, [entry, file, String(n), mode === 'index beside' ? 'beside' : 'sync'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const r = JSON.parse(out.trim().split('\n').pop()!) as { wallS: number; cpuUs: number; written?: number }
  return { ...r, written: r.written ?? 0, load: (load0 + loadavg()[0]!) / 2 }
}

export const run: BenchFn = async (ctx) => {
  const n = Number(process.env.CALLSIGHT_BENCH_INGEST_CALLS ?? (ctx.quick ? 100_000 : 300_000))
  const rounds = Number(process.env.CALLSIGHT_BENCH_INGEST_ROUNDS ?? 2)
  const base = process.env.CALLSIGHT_BENCH_INGEST_BASE ?? DEFAULT_BASE
  const current = join(process.cwd(), 'out', 'node', 'bench-ingest-child.mjs')
  if (!existsSync(current)) throw new Error('out/node/bench-ingest-child.mjs is not built (npm run build)')
  ctx.log(`building the baseline write path of ${base} aside`)
  const entries: Record<Mode, string> = {
    'old sync': buildBaseline(base, join(ctx.workDir, 'base')),
    'new sync': current,
    'index beside': current
  }
  const modes: Mode[] =
    process.env.CALLSIGHT_BENCH_INGEST_BESIDE === '1' ? ['old sync', 'new sync', 'index beside'] : ['old sync', 'new sync']
  const files = Object.fromEntries(modes.map((m) => [m, join(ctx.workDir, `${m.replace(' ', '-')}.db`)])) as Record<Mode, string>
  const runs: Record<Mode, Run[]> = { 'old sync': [], 'new sync': [], 'index beside': [] }
  for (let r = 0; r < rounds; r++) {
    // Alternately, the order reversed each round: neither gets the quieter moments.
    const order = r % 2 === 0 ? modes : [...modes].reverse()
    for (const mode of order) {
      const one = ingestOnce(entries[mode], files[mode], n, mode)
      runs[mode].push(one)
      ctx.log(
        `${mode}: ${n.toLocaleString('en')} calls, ${Math.round(n / one.wallS)} calls/s, ${(one.cpuUs / n).toFixed(1)} CPU-µs per call, ${(one.written / 1e9).toFixed(2)} GB written, load ${one.load.toFixed(1)}`
      )
    }
  }
  const old = answers(files['old sync'])
  for (const mode of modes.slice(1)) {
    const other = answers(files[mode])
    const differ = QUERIES.filter((_, i) => old[i] !== other[i])
    if (differ.length > 0) throw new Error(`${mode} answers differently from old sync: ${differ.map((q) => JSON.stringify(q)).join('; ')}`)
  }
  const rate = (m: Mode): number => median(runs[m].map((x) => n / x.wallS))
  const cpu = (m: Mode): number => median(runs[m].map((x) => x.cpuUs / n))
  const written = (m: Mode): number => median(runs[m].map((x) => x.written / 1e9))
  const loads = modes.flatMap((m) => runs[m].map((x) => x.load))
  const loadNote = `load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`
  const rows: BenchRow[] = [
    {
      metric: `ingest end to end, the sync's path (${n.toLocaleString('en')} calls + 10 items), median of ${rounds}`,
      value: Math.round(rate('new sync')),
      unit: 'calls/s',
      baseline: Math.round(rate('old sync')),
      ratio: rate('new sync') / rate('old sync'),
      target: 20_000,
      targetKind: 'min',
      note: `baseline: the write path of ${base}, same driver, alternately; ratio = ours / baseline; ${loadNote}`
    },
    {
      metric: "ingest CPU per call, all threads, the sync's path",
      value: cpu('new sync'),
      unit: 'µs',
      baseline: cpu('old sync'),
      ratio: cpu('old sync') / cpu('new sync'),
      note: `ratio = baseline / ours; answers of ${QUERIES.length} searches equal on every file`
    },
    {
      metric: "ingest bytes written by the process (WAL, checkpoints, file), the sync's path",
      value: written('new sync'),
      unit: 'GB',
      baseline: written('old sync'),
      ratio: written('old sync') / written('new sync'),
      note: '/proc/self/io wchar; ratio = baseline / ours'
    }
  ]
  if (modes.includes('index beside')) {
    rows.push({
      metric: 'ingest end to end, the index built beside (a first team pull)',
      value: Math.round(rate('index beside')),
      unit: 'calls/s',
      baseline: Math.round(rate('new sync')),
      ratio: rate('index beside') / rate('new sync'),
      note: `CPU ${cpu('index beside').toFixed(1)} µs per call; baseline: the sync's path of this tree`
    })
  }
  return { name: 'ingest', rows }
}
