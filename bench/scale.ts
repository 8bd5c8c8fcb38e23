/**
 * `npm run bench -- --scale 5m` (or `--scale 1m`): every search shape of the query bench and
 * the slow shapes users met (scale-shapes.ts), the as-you-type keystrokes, the first page on
 * a search just opened, ingest, the export, and the search's resident memory, at 1,000,000
 * calls and (5m) at 5,000,000, on data generated once into a kept file (scale-data.ts).
 *
 * At each size main's search (MAIN_SCALE: the strategies this work added, off) and ours are
 * measured alternately, sample by sample, on the same file in the same run, so the load of
 * this shared machine falls on both alike. Each row is ours; with 5m its baseline is ours at
 * 1,000,000 and its ratio 5M / 1M (what grows faster than the data shows above 5), and the
 * note gives main's value and main / ours at each size.
 */
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { exportCalls } from '../src/core/export'
import { createSearch, type LocalSearch } from '../src/core/search'
import { SearchQuery } from '../src/shared/domain'
import { MAIN_SCALE, MAIN_SCALE_OPEN } from './baselines/search-strategies'
import { SCALES, scaleData, type Scale, type ScaleData } from './scale-data'
import { keystrokes, shapeWords, timedSteps, type ShapeWords } from './scale-shapes'
import { percentile, type BenchContext, type BenchFn, type BenchRow } from './types'

type Impl = 'main' | 'ours'
const IMPLS: Impl[] = ['main', 'ours']

interface Measured {
  unit: string
  target?: number
  targetKind?: 'max' | 'min'
  main?: number
  ours: number
  plan?: string
}

type Results = Map<string, Measured>

/** p95 of each timed step, main and ours alternately per sample. */
function timeSteps(searches: Record<Impl, LocalSearch>, w: ShapeWords, iters: number, out: Results, log: (l: string) => void): void {
  // CALLSIGHT_BENCH_SCALE_STEPS: only the steps whose name holds it (iterating on one shape).
  const only = process.env.CALLSIGHT_BENCH_SCALE_STEPS
  for (const step of timedSteps(w).filter((s) => !only || s.metric.includes(only))) {
    const times: Record<Impl, number[]> = { main: [], ours: [] }
    // Once untimed on each: data-level memory (columns, catalog, kept prefix sets) is built,
    // as the app builds it on the first query that needs it (or its warm-up does).
    for (const impl of IMPLS) {
      searches[impl].resetCaches()
      step.prime?.(searches[impl])
      step.run(searches[impl])
    }
    const started = performance.now()
    for (let i = 0; i < iters && performance.now() - started < 20_000; i++) {
      // Each goes first every other sample: neither always finds the other's reads in the caches.
      for (const impl of i % 2 === 0 ? IMPLS : [...IMPLS].reverse()) {
        const s = searches[impl]
        s.resetCaches()
        step.prime?.(s)
        const t = performance.now()
        step.run(s)
        times[impl].push(performance.now() - t)
      }
    }
    const plan = step.plan ? (searches.ours.resetCaches(), step.plan(searches.ours)) : undefined
    const planMain = step.plan ? (searches.main.resetCaches(), step.plan(searches.main)) : undefined
    out.set(`${step.metric} p95`, {
      unit: 'ms',
      target: step.target,
      targetKind: 'max',
      main: percentile(times.main, 95),
      ours: percentile(times.ours, 95),
      plan: plan === undefined ? undefined : plan === planMain ? plan : `${plan}; main: ${planMain}`
    })
    log(`${step.metric}: main ${percentile(times.main, 95).toFixed(1)} ours ${percentile(times.ours, 95).toFixed(1)} ms [${plan ?? ''}]`)
  }
}

/** Keystroke → rows: each prefix of a word typed, its first page, on a search whose per-query memory was reset before the word. */
function timeKeystrokes(searches: Record<Impl, LocalSearch>, w: ShapeWords, rounds: number, out: Results): void {
  const times: Record<Impl, number[]> = { main: [], ours: [] }
  for (let r = 0; r < rounds; r++) {
    for (const word of keystrokes(w)) {
      for (const impl of IMPLS) {
        const s = searches[impl]
        s.resetCaches()
        for (const q of word) {
          const t = performance.now()
          s.page(q, 0, 100)
          times[impl].push(performance.now() - t)
        }
      }
    }
  }
  out.set(`as-you-type: keystroke → rows p95 (${times.ours.length} keystrokes)`, {
    unit: 'ms',
    target: 100,
    targetKind: 'max',
    main: percentile(times.main, 95),
    ours: percentile(times.ours, 95)
  })
}

/** The first page of a 50 % word on a cache just opened, main and ours alternately, each on a cache opened fresh. */
function timeOpened(file: string, w: ShapeWords, samples: number, out: Results): void {
  const times: Record<Impl, number[]> = { main: [], ours: [] }
  const q = SearchQuery.parse({ text: w.half })
  for (let i = 0; i < samples; i++) {
    for (const impl of IMPLS) {
      const cache = openCache(file, { readonly: true, ...(impl === 'main' ? MAIN_SCALE_OPEN : {}) })
      try {
        const s = createSearch(cache, {}, impl === 'main' ? MAIN_SCALE : {})
        const t = performance.now()
        s.page(q, 0, 100)
        times[impl].push(performance.now() - t)
      } finally {
        cache.close()
      }
    }
  }
  out.set(`opened: first page of a 50% word, the first query after opening p95 of ${samples}`, {
    unit: 'ms',
    target: 25,
    targetKind: 'max',
    main: percentile(times.main, 95),
    ours: percentile(times.ours, 95)
  })
}

/** A 5 % word's matches exported as CSV through search.iterate and exportCalls, as the app exports a search. */
async function timeExport(search: LocalSearch, w: ShapeWords, workDir: string, out: Results): Promise<void> {
  const query = SearchQuery.parse({ text: w.w1 })
  const t = performance.now()
  const source = search.iterate({ kind: 'query', query })
  const r = await exportCalls({
    source,
    file: join(workDir, 'scale-export.csv'),
    format: 'csv',
    columns: ['callId', 'callDate', 'title', 'summary', 'analysis'],
    analysisLayout: 'wide',
    zone: 'Europe/Istanbul',
    meta: { query, appVersion: 'bench', exportedAt: Date.now() }
  })
  const ms = performance.now() - t
  out.set(`export: CSV of a 5% word's matches (${r.count.toLocaleString('en')} calls)`, { unit: 'ms', ours: ms })
  out.set(`export: CSV rate`, { unit: 'calls/s', ours: r.count / (ms / 1000) })
}

/** The search's memory in a process of its own (scale-memory-child.ts), main and ours. */
function memory(file: string, w: ShapeWords, out: Results, log: (l: string) => void): void {
  type Split = { anonMb: number | null; fileMb: number | null }
  const got: Partial<Record<Impl, { warmedMb: number; openedMb: number; peakMb: number; warmMs: number; endSplit: Split }>> = {}
  for (const impl of IMPLS) {
    const r = spawnSync(process.execPath, [join(process.cwd(), 'out', 'node', 'bench-scale-memory.mjs'), file, impl, JSON.stringify(w)], {
      encoding: 'utf8',
      maxBuffer: 1 << 20
    })
    if (r.status !== 0) {
      log(`memory (${impl}) failed: ${r.stderr.slice(-500)}`)
      return
    }
    got[impl] = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as (typeof got)[Impl]
    log(`memory (${impl}): ${r.stdout.trim()}`)
  }
  const { main, ours } = got as Required<typeof got>
  out.set('memory: resident peak while searching (own process, warm-up and every step)', {
    unit: 'MB',
    target: 1536,
    targetKind: 'max',
    main: main.peakMb,
    ours: ours.peakMb
  })
  out.set('memory: resident at the end, heap and buffers (RssAnon)', {
    unit: 'MB',
    main: main.endSplit.anonMb ?? NaN,
    ours: ours.endSplit.anonMb ?? NaN
  })
  out.set("memory: resident at the end, file pages of SQLite's memory map (RssFile)", {
    unit: 'MB',
    main: main.endSplit.fileMb ?? NaN,
    ours: ours.endSplit.fileMb ?? NaN
  })
  out.set('memory: warm-up (RSS it adds)', { unit: 'MB', main: main.warmedMb - main.openedMb, ours: ours.warmedMb - ours.openedMb })
  out.set('memory: warm-up time, unloaded by requests', { unit: 'ms', main: main.warmMs, ours: ours.warmMs })
}

async function measureScale(ctx: BenchContext, data: ScaleData): Promise<Results> {
  const out: Results = new Map()
  const w = shapeWords(data.n)
  ctx.log(`${data.n.toLocaleString('en')} calls (${data.file}${data.fresh ? ', generated now' : ''}); words ${JSON.stringify(w)}`)
  const ing = data.ingest
  out.set('ingest (when the data file was generated)', {
    unit: 'calls/s',
    target: 20_000,
    targetKind: 'min',
    ours: ing.callsPerSec,
    plan: `median of blocks ${Math.round(ing.medianPerSec)}/s, ${ing.generatedAt}`
  })
  timeOpened(data.file, w, ctx.quick ? 2 : 6, out)
  // A connection each: main's maps the whole file, ours its first SEARCH_MMAP_BYTES.
  const cache = openCache(data.file, { readonly: true })
  const mainCache = openCache(data.file, { readonly: true, ...MAIN_SCALE_OPEN })
  try {
    const searches: Record<Impl, LocalSearch> = { main: createSearch(mainCache, {}, MAIN_SCALE), ours: createSearch(cache) }
    timeSteps(searches, w, ctx.quick ? 4 : 12, out, ctx.log)
    timeKeystrokes(searches, w, ctx.quick ? 1 : 3, out)
    await timeExport(searches.ours, w, ctx.workDir, out)
  } finally {
    mainCache.close()
    cache.close()
  }
  memory(data.file, w, out, ctx.log)
  return out
}

const fmt = (n: number | undefined): string => (n === undefined ? '' : n >= 100 ? n.toFixed(0) : n.toFixed(1))

export const run: BenchFn = async (ctx) => {
  const scales: Scale[] = ctx.scale === '5m' ? ['1m', '5m'] : ['1m']
  // Generate (or find) every size first: a run that must generate 5,000,000 calls does it
  // before any timing, not between the two sizes' timings.
  const data = scales.map((s) => scaleData(SCALES[s], ctx.log))
  const results: Results[] = []
  for (const d of data) results.push(await measureScale(ctx, d))
  const [small, large] = results as [Results, Results | undefined]
  const rows: BenchRow[] = []
  for (const [metric, s] of small) {
    const l = large?.get(metric)
    const at = l ?? s
    const mainNote = (m: Measured, size: string): string =>
      m.main === undefined ? '' : `main ${size} ${fmt(m.main)} (main/ours ${(m.main / m.ours).toFixed(2)})`
    rows.push({
      metric: `${metric}${at.plan ? ` [${at.plan}]` : ''}`,
      value: at.ours,
      unit: at.unit,
      ...(l ? { baseline: s.ours, ratio: l.ours / s.ours } : s.main !== undefined ? { baseline: s.main, ratio: s.main / s.ours } : {}),
      target: at.target,
      targetKind: at.targetKind,
      note: l
        ? `value: 5M; baseline: 1M; ratio 5M/1M; ${[mainNote(s, '1M'), mainNote(l, '5M')].filter(Boolean).join('; ')}`
        : s.main !== undefined
          ? 'baseline: main, same run, alternating; ratio main/ours'
          : ''
    })
  }
  return { name: 'scale', rows }
}
