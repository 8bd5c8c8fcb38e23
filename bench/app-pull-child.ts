/**
 * A pull as the app makes it (src/core/app/handlers/team.ts), in a process of its own so the
 * bench can read its peak resident memory: the cache opened as AccountRuntime opens it (its
 * search pragmas, the 2 GB memory map), pullTeamCache without the deferred index build, and
 * V8's defaults (no heap tuning: that is the CLI's pull only). Electron's main process adds
 * its own baseline on top; this is the pull's share.
 *
 * node out/node/bench-app-pull.mjs <postgres url> <schema> <cache file> [--keep-map]
 * --keep-map: as before the pull turned the map off (CallCache.bulkWriting), for a baseline.
 * Prints the final progress as one JSON line.
 */
import { openCache } from '../src/core/cache'
import { SEARCH_MMAP_BYTES } from '../src/core/cache/cache-db'
import { createPool, pullTeamCache } from '../src/core/team'

const [url, schema, file, flag] = process.argv.slice(2)
if (!url || !schema || !file || (flag !== undefined && flag !== '--keep-map')) {
  process.stderr.write('usage: bench-app-pull <postgres url> <schema> <cache file> [--keep-map]\n')
  process.exit(2)
}
const cache = openCache(file)
const pool = createPool({ url, schema, maxConnections: 1, applicationName: 'callsight-app' })
try {
  const final = await pullTeamCache({
    pool,
    schema,
    sourceLabel: url,
    cache,
    // Progress comes after each batch, once the pull's bulk mode turned the map off: back on.
    onProgress: flag === '--keep-map' ? () => cache.db.pragma(`mmap_size = ${SEARCH_MMAP_BYTES}`) : () => undefined
  })
  process.stdout.write(`${JSON.stringify(final)}\n`)
  process.exitCode = final.error ? 1 : 0
} finally {
  cache.close()
  await pool.end()
}
