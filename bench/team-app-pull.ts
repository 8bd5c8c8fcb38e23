import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { appPullInChild } from './team-support'
import type { BenchContext, BenchRow } from './types'

/**
 * The team section's pull as the app makes it (bench/app-pull-child.ts: index each batch,
 * the cache opened for search), twice in the same run: as it is, and with V8's default heap
 * growth as before the pull bounded it (heap-growth.ts). Each pulls every call of the bench
 * schema into its own file, removed afterwards. (The memory map kept on, before
 * cache.bulk.bulkWriting: 1,141 MB against 326 MB; docs/perf-log.md, 2026-11-28.)
 */
export async function appPullRows(ctx: BenchContext, url: string, n: number): Promise<BenchRow[]> {
  const entry = join(process.cwd(), 'out', 'node', 'bench-app-pull.mjs')
  if (!existsSync(entry)) {
    ctx.log("team: the app's pull skipped: out/node/bench-app-pull.mjs is not built")
    return []
  }
  const pull = async (defaultHeap: boolean): Promise<Awaited<ReturnType<typeof appPullInChild>>> => {
    const file = join(ctx.workDir, defaultHeap ? 'app-default-heap.sqlite' : 'app.sqlite')
    try {
      const r = await appPullInChild(entry, url, file, defaultHeap)
      if (r.calls !== n) throw new Error(`the app's pull applied ${r.calls} of ${n} calls`)
      return r
    } finally {
      for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true })
    }
  }
  const app = await pull(false)
  const before = await pull(true)
  const mb = (b: number): string => `${(b / 1e6).toFixed(0)} MB`
  ctx.log(
    `app's pull: ${Math.round(n / app.seconds)}/s, peak RSS ${mb(app.rss)}; with V8's default heap growth (before): ${Math.round(n / before.seconds)}/s, ${mb(before.rss)}`
  )
  return [
    {
      metric: `pull of ${n.toLocaleString('en')} calls as the app pulls (index each batch): peak resident memory`,
      value: app.rss / 1e6,
      unit: 'MB',
      baseline: before.rss / 1e6,
      ratio: app.rss / before.rss,
      note: "a Node process, not Electron's main process (which adds its own baseline); baseline: V8's default heap growth during the pull, as before, same run"
    },
    {
      metric: `pull of ${n.toLocaleString('en')} calls as the app pulls: throughput`,
      value: n / app.seconds,
      unit: 'calls/s',
      baseline: n / before.seconds,
      ratio: before.seconds / app.seconds,
      note: "baseline: V8's default heap growth, same run; CALLSIGHT_BENCH_TEAM_APP_PULL=0 skips both"
    }
  ]
}
