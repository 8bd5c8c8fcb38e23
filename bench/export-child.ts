/**
 * One export of all results from a real cache, in a process of its own, for `--only export`
 * (bench/export-cache.ts): built against this tree and against a baseline tree copied aside
 * (bench/ingest-baseline.ts), so both export paths run the same driver. The export is the
 * one `callsight serve` makes for "all results": the search's iteration, the default columns
 * with an extra field, the wide layout, no sidecar, no flush to disk.
 *
 * node bench-export-child.mjs <cache file> <csv|xlsx> <output file> <rounds>
 * Prints one JSON line per round: wall ms and CPU ms (this process) of the export alone,
 * opening the cache and loading the code excluded. The first round warms the JIT up; the
 * caller decides what to keep.
 */
import { rmSync } from 'node:fs'
import { openCache } from '../src/core/cache'
import { exportCalls } from '../src/core/export'
import { createSearch } from '../src/core/search'
import { SearchQuery } from '../src/shared/domain'

const [file, format, out, rounds] = process.argv.slice(2) as [string, 'csv' | 'xlsx', string, string]
const cache = openCache(file, { readonly: true })
try {
  for (let r = 0; r < Number(rounds); r++) {
    rmSync(out, { force: true })
    const search = createSearch(cache)
    const cpu = process.cpuUsage()
    const started = performance.now()
    const source = search.iterate({ kind: 'query', query: SearchQuery.parse({ results: 'all' }) })
    const result = await exportCalls({
      source,
      file: out,
      format,
      columns: ['callId', 'callDate', 'title', 'summary', 'extra', 'analysis'],
      extraFields: [{ key: 'queue', header: 'Queue' }],
      analysisLayout: 'wide',
      zone: 'Europe/Istanbul',
      headerLanguage: 'en',
      sidecar: false,
      durable: false,
      meta: { query: { results: 'all' }, appVersion: 'bench', exportedAt: Date.UTC(2026, 0, 1) }
    })
    const wallMs = performance.now() - started
    const used = process.cpuUsage(cpu)
    console.log(JSON.stringify({ wallMs, cpuMs: (used.user + used.system) / 1000, count: result.count }))
  }
} finally {
  cache.close()
}
