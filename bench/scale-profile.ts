/**
 * One shape or a few of the scale section, timed in wall and CPU time (the machine is
 * shared: CPU time moves less with the load), main and ours alternately, with the plan that
 * served each: for iterating on a slow shape with `--cpu-prof`.
 *
 * node [--cpu-prof] out/node/bench-scale-profile.mjs <cache file> <part of a step name, or parts separated by |> [samples]
 */
import { openCache } from '../src/core/cache'
import { createSearch, type LocalSearch, type SearchParts } from '../src/core/search'
import { SearchQuery } from '../src/shared/domain'
import { ESTIMATE_FIRST, MAIN_SCALE, MAIN_SCALE_OPEN } from './baselines/search-strategies'
import { shapeWords, timedSteps } from './scale-shapes'
import { percentile } from './types'

const [file, only, samplesArg] = process.argv.slice(2)
if (!file || !only) {
  process.stderr.write('usage: bench-scale-profile <cache file> <part of a step name> [samples]\n')
  process.exit(2)
}
const samples = Number(samplesArg ?? 12)
const f = (xs: number[]): string => `p50 ${percentile(xs, 50).toFixed(1)} p95 ${percentile(xs, 95).toFixed(1)}`
// 'estimate-first': ours with every query estimated as it is prepared (as before window-first).
const impls = (process.env.CALLSIGHT_BENCH_IMPLS ?? 'main,ours').split(',') as Array<'main' | 'ours'>
const partsOf = (impl: string): SearchParts => (impl === 'main' ? MAIN_SCALE : impl === 'estimate-first' ? ESTIMATE_FIRST : {})

/** "opened": the first page of a 50 % word on a cache opened fresh for each sample (the scale section's timeOpened). */
function opened(): void {
  const n = Number(/calls-(\d+)-/.exec(file!)?.[1] ?? 1_000_000)
  const q = SearchQuery.parse({ text: shapeWords(n).half })
  const wall: Record<string, number[]> = Object.fromEntries(impls.map((i) => [i, []]))
  const cpu: Record<string, number[]> = Object.fromEntries(impls.map((i) => [i, []]))
  const plans: Record<string, string> = {}
  for (let i = 0; i < samples; i++) {
    for (const impl of i % 2 === 0 ? impls : [...impls].reverse()) {
      const cache = openCache(file!, { readonly: true, ...(impl === 'main' ? MAIN_SCALE_OPEN : {}) })
      try {
        const s = createSearch(cache, {}, partsOf(impl))
        const c = process.cpuUsage()
        const t = performance.now()
        s.page(q, 0, 100)
        wall[impl]!.push(performance.now() - t)
        const d = process.cpuUsage(c)
        cpu[impl]!.push((d.user + d.system) / 1000)
        if (i === 0) {
          const again = openCache(file!, { readonly: true, ...(impl === 'main' ? MAIN_SCALE_OPEN : {}) })
          plans[impl] = createSearch(again, {}, partsOf(impl)).explain(q, 100).served.plan
          again.close()
        }
      } finally {
        cache.close()
      }
    }
  }
  process.stdout.write(`opened: first page of "${q.text}"\n`)
  for (const impl of impls) process.stdout.write(`  ${impl}: wall ${f(wall[impl]!)} cpu ${f(cpu[impl]!)} [${plans[impl]}]\n`)
}

if (only === 'words') {
  // The words of the shapes at this size, as the memory child takes them.
  process.stdout.write(`${JSON.stringify(shapeWords(Number(/calls-(\d+)-/.exec(file)?.[1] ?? 1_000_000)))}\n`)
  process.exit(0)
}
if (only === 'opened') {
  opened()
  process.exit(0)
}
const cache = openCache(file, { readonly: true })
const mainCache = openCache(file, { readonly: true, ...MAIN_SCALE_OPEN })
try {
  // The generated files are named by their size (scale-data.ts).
  const n = Number(/calls-(\d+)-/.exec(file)?.[1] ?? 1_000_000)
  const w = shapeWords(n)
  const searches = Object.fromEntries(
    impls.map((impl) => [impl, createSearch(impl === 'main' ? mainCache : cache, {}, partsOf(impl))])
  ) as Record<string, LocalSearch>
  // Several parts may be given, separated by '|': the steps whose name holds any of them.
  const parts = only.split('|')
  for (const step of timedSteps(w).filter((s) => parts.some((part) => s.metric.includes(part)))) {
    const wall: Record<string, number[]> = Object.fromEntries(impls.map((i) => [i, []]))
    const cpu: Record<string, number[]> = Object.fromEntries(impls.map((i) => [i, []]))
    for (const impl of impls) {
      searches[impl]!.resetCaches()
      step.prime?.(searches[impl]!)
      step.run(searches[impl]!)
    }
    for (let i = 0; i < samples; i++) {
      for (const impl of i % 2 === 0 ? impls : [...impls].reverse()) {
        const s = searches[impl]!
        s.resetCaches()
        step.prime?.(s)
        const c = process.cpuUsage()
        const t = performance.now()
        step.run(s)
        wall[impl]!.push(performance.now() - t)
        const d = process.cpuUsage(c)
        cpu[impl]!.push((d.user + d.system) / 1000)
      }
    }
    process.stdout.write(`${step.metric}\n`)
    for (const impl of impls) {
      const plan = step.plan ? (searches[impl]!.resetCaches(), step.plan(searches[impl]!)) : ''
      process.stdout.write(`  ${impl}: wall ${f(wall[impl]!)} cpu ${f(cpu[impl]!)} [${plan}]\n`)
    }
  }
} finally {
  mainCache.close()
  cache.close()
}
