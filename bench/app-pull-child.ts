/**
 * A pull as the app makes it (src/core/app/handlers/team.ts), in a process of its own so the
 * bench can read its peak resident memory: the cache opened as AccountRuntime opens it (its
 * search pragmas, the 2 GB memory map the pull turns off while it writes) and pullTeamCache
 * without the deferred index build. Electron's main process adds its own baseline on top;
 * this is the pull's share.
 *
 * node out/node/bench-app-pull.mjs <postgres url> <schema> <cache file> [--default-heap]
 * --default-heap: V8's default heap growth during the pull, as before the pull bounded it
 * (heap-growth.ts), for a baseline. Prints the final progress as one JSON line.
 */
import { setFlagsFromString } from 'node:v8'
import { openCache } from '../src/core/cache'
import { createPool, pullTeamCache } from '../src/core/team'
import { DEFAULT_GROWTH_FLAG } from '../src/core/team/heap-growth'

const [url, schema, file, flag] = process.argv.slice(2)
if (!url || !schema || !file || (flag !== undefined && flag !== '--default-heap')) {
  process.stderr.write('usage: bench-app-pull <postgres url> <schema> <cache file> [--default-heap]\n')
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
    // Progress comes after each batch, once the pull bounded the heap's growth: lifted again.
    onProgress: flag === '--default-heap' ? () => setFlagsFromString(DEFAULT_GROWTH_FLAG) : () => undefined
  })
  process.stdout.write(`${JSON.stringify(final)}\n`)
  process.exitCode = final.error ? 1 : 0
} finally {
  cache.close()
  await pool.end()
}
