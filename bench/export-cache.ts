/**
 * The export as `callsight serve` makes it: all results of a search, read from a real SQLite
 * cache of 100,000 calls (quick: 20,000) with ten analysis items each, to CSV and XLSX. The
 * old path is the export of an earlier commit, built aside with the same driver
 * (bench/export-child.ts), run alternately with this tree's, each in processes of its own.
 * The two CSV files must be byte for byte the same.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { buildBaseline } from './ingest-baseline'
import { ingest } from './search'
import { median, percentile, type BenchContext, type BenchRow } from './types'

/** main when the export's hot path was rewritten. */
export const EXPORT_BASE = 'a77f689'

interface Sample {
  wallMs: number
  cpuMs: number
  count: number
}
type Path = 'old' | 'new'

const DRIVER = {
  entry: 'bench/export-child.ts',
  copy: ['bench/export-child.ts'],
  name: 'bench-export-child'
}

function exportRuns(entry: string, db: string, format: 'csv' | 'xlsx', out: string, rounds: number): Sample[] {
  const text = execFileSync(process.execPath, [entry, db, format, out, String(rounds)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 20
  })
  return text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Sample)
}

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex')

export async function cacheRows(ctx: BenchContext): Promise<BenchRow[]> {
  const n = Number(process.env.CALLSIGHT_BENCH_EXPORT_CACHE_CALLS ?? (ctx.quick ? 20_000 : 100_000))
  // Processes per path and format; each exports twice (a cold and a warm JIT, as a serve's first and later exports).
  const csvProcs = Number(process.env.CALLSIGHT_BENCH_EXPORT_CACHE_ROUNDS ?? (ctx.quick ? 2 : 4))
  const xlsxProcs = ctx.quick ? 1 : 2
  const base = process.env.CALLSIGHT_BENCH_EXPORT_BASE ?? EXPORT_BASE
  const current = join(process.cwd(), 'out', 'node', 'bench-export-child.mjs')
  if (!existsSync(current)) throw new Error('out/node/bench-export-child.mjs is not built (npm run build)')
  ctx.log(`building the baseline export of ${base} aside`)
  const entries: Record<Path, string> = { old: buildBaseline(base, join(ctx.workDir, 'export-base'), DRIVER), new: current }

  const db = join(ctx.workDir, `export-${n}.db`)
  const cache = openCache(db)
  try {
    ingest(cache, n, 20, () => undefined)
    cache.optimizeIndex()
  } finally {
    cache.close()
  }
  const label = n.toLocaleString('en')
  ctx.log(`cache of ${label} calls written`)

  const loads: number[] = []
  const measure = (format: 'csv' | 'xlsx', procs: number): Record<Path, Sample[]> => {
    const runs: Record<Path, Sample[]> = { old: [], new: [] }
    for (let r = 0; r < procs; r++) {
      // Alternately, the order reversed each round: neither gets the quieter moments.
      for (const path of (r % 2 === 0 ? ['old', 'new'] : ['new', 'old']) as Path[]) {
        loads.push(loadavg()[0]!)
        const got = exportRuns(entries[path], db, format, join(ctx.workDir, `${path}.${format}`), 2)
        for (const s of got) if (s.count !== n) throw new Error(`${path} exported ${s.count} of ${n} calls`)
        runs[path].push(...got)
        ctx.log(`${format} ${path}: ${got.map((s) => `${s.wallMs.toFixed(0)} ms (CPU ${s.cpuMs.toFixed(0)})`).join(', ')}`)
      }
    }
    return runs
  }
  const csv = measure('csv', csvProcs)
  if (sha(join(ctx.workDir, 'old.csv')) !== sha(join(ctx.workDir, 'new.csv'))) throw new Error('the CSV differs from the old path')
  const xlsx = measure('xlsx', xlsxProcs)
  const loadNote = `load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`

  const rows: BenchRow[] = []
  const add = (format: string, runs: Record<Path, Sample[]>, target: number): void => {
    const k = runs.new.length
    const of = (p: Path, f: (s: Sample[]) => number): number => f(runs[p])
    const wall50 = (s: Sample[]): number => median(s.map((x) => x.wallMs))
    const wall95 = (s: Sample[]): number =>
      percentile(
        s.map((x) => x.wallMs),
        95
      )
    const cpu50 = (s: Sample[]): number => median(s.map((x) => x.cpuMs))
    const note = `baseline: the export of ${base}, same driver, alternately; ratio = ours / baseline`
    rows.push(
      {
        metric: `${format} from a ${label}-call cache (serve's path), wall p50 of ${k}`,
        value: of('new', wall50),
        unit: 'ms',
        baseline: of('old', wall50),
        ratio: of('new', wall50) / of('old', wall50),
        ...(ctx.quick ? {} : { target, targetKind: 'max' as const }),
        note: `${note}; ${loadNote}`
      },
      {
        metric: `${format} from the cache, wall p95 of ${k}`,
        value: of('new', wall95),
        unit: 'ms',
        baseline: of('old', wall95),
        ratio: of('new', wall95) / of('old', wall95),
        note
      },
      {
        metric: `${format} from the cache, CPU p50 of ${k}`,
        value: of('new', cpu50),
        unit: 'ms',
        baseline: of('old', cpu50),
        ratio: of('new', cpu50) / of('old', cpu50),
        note: `${note}${format === 'CSV' ? '; the two files byte for byte equal' : ''}`
      }
    )
  }
  add('CSV', csv, 1_800)
  add('XLSX', xlsx, 20_000)
  return rows
}
