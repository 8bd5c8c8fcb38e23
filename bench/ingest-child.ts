/**
 * One ingest end to end, in a process of its own, for `--only ingest` (bench/ingest.ts): the
 * same source is built against this tree and against a baseline tree copied aside, so both
 * write paths run the same driver. openCache, writePages in pages of 100 stored 20 a
 * transaction (as the sync engine stores pages that arrived together), the index finished
 * (`sync`: settleIndex at the end, as the sync engine; `beside`: the first team pull's index build on a worker).
 *
 * node bench-ingest-child.mjs <cache file> <calls> <sync|beside>
 * Prints one JSON line: wall seconds and CPU-µs of the whole process (all threads), the
 * generation of the calls excluded from both, and the bytes it wrote.
 */
import { readFileSync, rmSync } from 'node:fs'
import { openCache, type CallCache, type WritePageInput } from '../src/core/cache'
import type { CallRecord } from '../src/shared/domain'
import { makeCall, prng } from './search-data'

const ALL_SCOPE = { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: true }
const TYPE_SCOPE = { callTypes: ['Fatura'], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: false }
/** Committed transactions the index build may lag behind (a team pull's bound). */
const BACKLOG = 4

/** This thread's CPU in µs (Linux: /proc/thread-self/stat, 10 ms ticks); 0 elsewhere. */
function threadCpuUs(): number {
  try {
    const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ')
    return (Number(f[11]) + Number(f[12])) * 10_000
  } catch {
    return 0
  }
}

/** The bulk pull's switches, as the facet of this tree's cache or as the cache's own methods in trees before the facet (a baseline's). */
type BulkSwitches = Pick<CallCache['bulk'], 'startIndexBuild' | 'indexBuildDrain' | 'finishIndexBuild'>
function bulkOf(cache: CallCache): BulkSwitches {
  return (cache as unknown as { bulk?: BulkSwitches }).bulk ?? (cache as unknown as BulkSwitches)
}

/** Bytes this process has written (Linux: /proc/self/io's wchar, every write call: WAL, checkpoints, file); 0 elsewhere. */
function writtenBytes(): number {
  try {
    return Number(/^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'))?.[1] ?? 0)
  } catch {
    return 0
  }
}

async function ingestOnce(file: string, n: number, beside: boolean): Promise<{ wallS: number; cpuUs: number; written: number }> {
  for (const ext of ['', '-wal', '-shm']) rmSync(file + ext, { force: true })
  const cache: CallCache = openCache(file)
  try {
    cache.ensureScope('all', ALL_SCOPE)
    cache.ensureScope('type:Fatura', TYPE_SCOPE)
    const rnd = prng(42)
    const bulk = bulkOf(cache)
    const cpu0 = process.cpuUsage()
    const written0 = writtenBytes()
    let genUs = 0
    let wallMs = 0
    let t = performance.now()
    if (beside) await bulk.startIndexBuild()
    wallMs += performance.now() - t
    const fatura: CallRecord[] = []
    let held: WritePageInput[] = []
    const store = async (): Promise<void> => {
      const t0 = performance.now()
      cache.writePages(held)
      held = []
      if (beside) await bulk.indexBuildDrain(BACKLOG)
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
    if (beside) await bulk.finishIndexBuild()
    // The end of a run as the sync engine settles it; a baseline from before settleIndex merged all.
    else if ('settleIndex' in cache) cache.settleIndex(n)
    else (cache as CallCache).optimizeIndex()
    wallMs += performance.now() - t
    const used = process.cpuUsage(cpu0)
    return { wallS: wallMs / 1000, cpuUs: used.user + used.system - genUs, written: writtenBytes() - written0 }
  } finally {
    cache.close()
  }
}

const [file, calls, mode] = process.argv.slice(2)
const n = Number(calls)
if (!file || !Number.isSafeInteger(n) || n <= 0 || (mode !== 'sync' && mode !== 'beside')) {
  process.stderr.write('usage: bench-ingest-child <cache file> <calls> <sync|beside>\n')
  process.exit(2)
}
process.stdout.write(`${JSON.stringify(await ingestOnce(file, n, mode === 'beside'))}\n`)
