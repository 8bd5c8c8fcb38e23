/**
 * The local part of the sizing bench: the same generated calls ingested through the cache
 * (writePages, 20 pages a transaction, then the index merged, as a sync ends) into a file of
 * today's schema and into one of schema 18 (one row per analysis item: the previous layout,
 * kept reachable by openCache's schemaVersion), alternately, twice each.
 * Reports calls per second end to end (wall clock and this process's CPU, the index
 * included), the bytes per call of each B-tree of both files, and the short-prefix shapes
 * ("i", "ka", a phrase ending in a short prefix) on both files, alternately: first page of
 * 100 and count, the search's per-query memory reset before each (its kept prefix sets too).
 */
import { rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { createSearch } from '../src/core/search'
import { SearchQuery } from '../src/shared/domain'
import { sqliteSizes } from './sizing-sizes'
import { ALL, callsIn, groups, TYPE } from './team-support'
import { median, percentile, type BenchContext, type BenchRow } from './types'

/** The layout before the analysis lists (schema 19). */
const OLD_SCHEMA = 18

interface Ingested {
  wallPerSec: number
  cpuPerSec: number
  file: string
}

function ingest(file: string, n: number, schemaVersion: number | undefined): Ingested {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true })
  const cache = openCache(file, schemaVersion === undefined ? {} : { schemaVersion })
  let calls = 0
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  try {
    cache.ensureScope('all', ALL)
    cache.ensureScope('type', TYPE)
    for (const g of groups(n, 11)) {
      cache.writePages(g)
      calls += callsIn(g)
    }
    cache.optimizeIndex()
  } finally {
    cache.close()
  }
  const seconds = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  return { wallPerSec: calls / seconds, cpuPerSec: calls / ((cpu.user + cpu.system) / 1e6), file }
}

const SHAPES: Array<[string, SearchQuery]> = [
  ['"i" first page', SearchQuery.parse({ text: 'i', results: 'all' })],
  ['"ka" first page', SearchQuery.parse({ text: 'ka', results: 'all' })],
  ['"ka" count', SearchQuery.parse({ text: 'ka', results: 'all' })],
  ['"müşteri ka" (phrase) first page', SearchQuery.parse({ text: '"müşteri ka"', results: 'all' })]
]
const SAMPLES = 12

/** p95 of each short-prefix shape on the old and the new file, sampled alternately. */
function prefixShapes(ctx: BenchContext, files: Record<'new' | 'old', string>): BenchRow[] {
  const open = (file: string, schemaVersion?: number): { search: ReturnType<typeof createSearch>; close: () => void } => {
    // The old file stays at its schema: opened without the bound, it would be migrated.
    const cache = openCache(file, schemaVersion === undefined ? {} : { schemaVersion })
    const search = createSearch(cache)
    return { search, close: () => cache.close() }
  }
  const sides = { old: open(files.old, OLD_SCHEMA), new: open(files.new) }
  const times: Record<string, Record<'new' | 'old', number[]>> = {}
  try {
    for (const [name, q] of SHAPES) {
      const counting = name.endsWith('count')
      const run = (w: 'new' | 'old'): number => {
        const s = sides[w].search
        s.resetCaches()
        const t = performance.now()
        if (counting) s.count(q)
        else s.page(q, 0, 100)
        return performance.now() - t
      }
      // Untimed: the in-memory columns both sides build once per data version.
      run('old')
      run('new')
      const got = { old: [] as number[], new: [] as number[] }
      for (let k = 0; k < SAMPLES; k++) for (const w of k % 2 ? (['new', 'old'] as const) : (['old', 'new'] as const)) got[w].push(run(w))
      times[name] = got
      const same = sides.old.search.count(q) === sides.new.search.count(q)
      if (!same) throw new Error(`sizing: "${name}" counts differ between the schemas`)
    }
  } finally {
    sides.old.close()
    sides.new.close()
  }
  return SHAPES.map(([name]) => {
    const value = percentile(times[name]!.new, 95)
    const baseline = percentile(times[name]!.old, 95)
    ctx.log(`  ${name}: p95 ${value.toFixed(1)} ms (schema 18: ${baseline.toFixed(1)} ms)`)
    return {
      metric: `short prefix: ${name}, p95 of ${SAMPLES}, reset before each`,
      value,
      unit: 'ms',
      baseline,
      ratio: baseline / value,
      note: 'baseline: schema 18 (analysis item rows), same calls, alternately; ratio = old / new'
    }
  })
}

export function localSizing(ctx: BenchContext, n: number): BenchRow[] {
  const runs: Record<'new' | 'old', Ingested[]> = { new: [], old: [] }
  for (let round = 0; round < 2; round++) {
    for (const which of ['old', 'new'] as const) {
      const r = ingest(join(ctx.workDir, `ingest-${which}.sqlite`), n, which === 'old' ? OLD_SCHEMA : undefined)
      runs[which].push(r)
      ctx.log(
        `ingest ${n.toLocaleString('en')} calls, ${which === 'new' ? 'schema 19 (analysis lists)' : 'schema 18 (item rows)'}: ` +
          `${r.wallPerSec.toFixed(0)} calls/s wall, ${r.cpuPerSec.toFixed(0)} calls per CPU-second`
      )
    }
  }
  const med = (w: 'new' | 'old', k: 'wallPerSec' | 'cpuPerSec'): number => median(runs[w].map((r) => r[k]))
  const rows: BenchRow[] = []
  for (const k of ['wallPerSec', 'cpuPerSec'] as const) {
    const value = med('new', k)
    const baseline = med('old', k)
    rows.push({
      metric: `ingest end to end with the index, ${n.toLocaleString('en')} calls (${k === 'wallPerSec' ? 'wall clock' : 'per CPU-second'})`,
      value,
      unit: 'calls/s',
      baseline,
      ratio: value / baseline,
      ...(k === 'wallPerSec' ? { target: 20_000, targetKind: 'min' as const } : {}),
      note: 'baseline: schema 18 (analysis item rows), alternately in this run; ratio = new / old'
    })
  }
  for (const which of ['old', 'new'] as const) {
    const file = runs[which][0]!.file
    const bytes = statSync(file).size
    ctx.log(`ingested file, ${which === 'new' ? 'schema 19' : 'schema 18'}: ${(bytes / n).toFixed(1)} B/call`)
    for (const s of sqliteSizes(file).filter((x) => x.bytes >= 65536)) ctx.log(`  ${s.name}: ${(s.bytes / n).toFixed(1)} B/call`)
  }
  rows.push(...prefixShapes(ctx, { old: runs.old[0]!.file, new: runs.new[0]!.file }))
  const sizeOf = (w: 'new' | 'old'): number => statSync(runs[w][0]!.file).size / n
  rows.push({
    metric: `ingested SQLite file per call (${n.toLocaleString('en')} calls)`,
    value: sizeOf('new'),
    unit: 'B',
    baseline: sizeOf('old'),
    ratio: sizeOf('old') / sizeOf('new'),
    note: 'baseline: schema 18; ratio = old / new'
  })
  return rows
}
