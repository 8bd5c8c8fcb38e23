/**
 * `npm run bench -- --only ingest`: a bulk ingest end to end (openCache, writePages in pages
 * of 100 stored 20 a transaction, the index finished), two ways on the same calls, alternately
 * in the same run:
 * - "main thread": every transaction writes its full-text rows; optimizeIndex at the end
 *   (what the sync engine does);
 * - "index beside": the full-text index is built on a worker thread from the committed rows
 *   (startIndexBuild / indexBuildDrain / finishIndexBuild, as a first team pull builds it).
 * Reported: calls/s of wall clock (generation of the calls excluded) and CPU-µs per call of
 * the whole process, all threads (generation excluded); then the answers of a set of
 * searches on the two files, which must be equal (the bench fails otherwise).
 * `CALLSIGHT_BENCH_INGEST_CALLS` sets the size (300,000; 100,000 with --quick).
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { openCache, type CallCache, type WritePageInput } from '../src/core/cache'
import { createSearch } from '../src/core/search'
import { SearchQuery, type CallRecord, type SearchQueryInput } from '../src/shared/domain'
import { COMMON_TERM, makeCall, prng, RARE_TERM } from './search-data'
import { median, type BenchFn, type BenchRow } from './types'

const ALL_SCOPE = { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: true }
const TYPE_SCOPE = { callTypes: ['Fatura'], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: false }
/** Committed transactions the index build may lag behind (a team pull's bound). */
const BACKLOG = 4

type Mode = 'main thread' | 'index beside'

/** This thread's CPU in µs (Linux: /proc/thread-self/stat, 10 ms ticks); 0 elsewhere. */
function threadCpuUs(): number {
  try {
    const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')
    return (Number(f[11]) + Number(f[12])) * 10_000
  } catch {
    return 0
  }
}

interface Run {
  wallS: number
  cpuUs: number
}

/** One ingest of n generated calls into a new file, its index finished. */
async function ingestOnce(file: string, n: number, mode: Mode): Promise<Run> {
  for (const ext of ['', '-wal', '-shm']) rmSync(file + ext, { force: true })
  const cache: CallCache = openCache(file)
  try {
    cache.ensureScope('all', ALL_SCOPE)
    cache.ensureScope('type:Fatura', TYPE_SCOPE)
    const rnd = prng(42)
    const cpu0 = process.cpuUsage()
    let genUs = 0
    let wallMs = 0
    const beside = mode === 'index beside'
    let t = performance.now()
    if (beside) await cache.startIndexBuild()
    wallMs += performance.now() - t
    const fatura: CallRecord[] = []
    let held: WritePageInput[] = []
    const store = async (): Promise<void> => {
      const t0 = performance.now()
      cache.writePages(held)
      held = []
      if (beside) await cache.indexBuildDrain(BACKLOG)
      wallMs += performance.now() - t0
    }
    for (let i = 0; i < n; i += 100) {
      const g0 = threadCpuUs()
      const page: CallRecord[] = []
      for (let k = i; k < Math.min(n, i + 100); k++) {
        const g = makeCall(k, n, rnd)
        page.push(g.record)
        if (g.topic === 0) fatura.push(g.record)
      }
      genUs += threadCpuUs() - g0
      held.push({ scopeKey: 'all', records: page, includeAnalysis: true, checkpoint: { next: i + 100 } })
      if (fatura.length >= 500)
        held.push({ scopeKey: 'type:Fatura', records: fatura.splice(0), includeAnalysis: false, checkpoint: { next: i } })
      if (held.length >= 20) await store()
    }
    if (fatura.length) held.push({ scopeKey: 'type:Fatura', records: fatura, includeAnalysis: false, checkpoint: null })
    if (held.length) await store()
    t = performance.now()
    if (beside) await cache.finishIndexBuild()
    else cache.optimizeIndex()
    wallMs += performance.now() - t
    const used = process.cpuUsage(cpu0)
    return { wallS: wallMs / 1000, cpuUs: used.user + used.system - genUs }
  } finally {
    cache.close()
  }
}

/** The answers compared between the two files: counts and the first page's call ids. */
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

export const run: BenchFn = async (ctx) => {
  const n = Number(process.env.CALLSIGHT_BENCH_INGEST_CALLS ?? (ctx.quick ? 100_000 : 300_000))
  const rounds = 2
  const runs: Record<Mode, Run[]> = { 'main thread': [], 'index beside': [] }
  const files: Record<Mode, string> = { 'main thread': join(ctx.workDir, 'main.db'), 'index beside': join(ctx.workDir, 'beside.db') }
  for (let r = 0; r < rounds; r++) {
    // Alternately, the order swapped each round: neither gets the quieter moments.
    const order: Mode[] = r % 2 === 0 ? ['main thread', 'index beside'] : ['index beside', 'main thread']
    for (const mode of order) {
      const one = await ingestOnce(files[mode], n, mode)
      runs[mode].push(one)
      ctx.log(
        `${mode}: ${n.toLocaleString('en')} calls, ${Math.round(n / one.wallS)} calls/s, ${(one.cpuUs / n).toFixed(1)} CPU-µs per call`
      )
    }
  }
  const main = answers(files['main thread'])
  const beside = answers(files['index beside'])
  const differ = QUERIES.filter((_, i) => main[i] !== beside[i])
  if (differ.length > 0) throw new Error(`the two ingests answer differently: ${differ.map((q) => JSON.stringify(q)).join('; ')}`)
  const rate = (m: Mode): number => median(runs[m].map((x) => n / x.wallS))
  const cpu = (m: Mode): number => median(runs[m].map((x) => x.cpuUs / n))
  const rows: BenchRow[] = [
    {
      metric: `ingest end to end, index beside (${n.toLocaleString('en')} calls + 10 items), median of ${rounds}`,
      value: Math.round(rate('index beside')),
      unit: 'calls/s',
      baseline: Math.round(rate('main thread')),
      ratio: rate('index beside') / rate('main thread'),
      target: 20_000,
      targetKind: 'min',
      note: 'baseline: the index written by each transaction, optimize at the end; ratio = ours / baseline'
    },
    {
      metric: 'ingest CPU per call, all threads, index beside',
      value: cpu('index beside'),
      unit: 'µs',
      baseline: cpu('main thread'),
      ratio: cpu('main thread') / cpu('index beside'),
      note: `ratio = baseline / ours; answers of ${QUERIES.length} searches equal on both files`
    }
  ]
  return { name: 'ingest', rows }
}
