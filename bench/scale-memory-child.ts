/**
 * One search's resident memory, in a process of its own so its peak is its own: the cache
 * opened read-only, the search created (main's strategies or ours), its background warm-up
 * run to the end (the RSS it adds is the warm-up's memory), then every timed step of the
 * scale section and the as-you-type keystrokes once each. Prints one JSON line: the RSS
 * before the warm-up, after it, and the process's peak (resourceUsage().maxRSS) over all of it,
 * with the kernel's split of it: SQLite's memory map puts the file pages it reads in the
 * resident set (reclaimable, but counted), apart from the heap and buffers.
 *
 * node out/node/bench-scale-memory.mjs <cache file> <main|ours> <words as JSON>
 */
import { readFileSync } from 'node:fs'
import { openCache } from '../src/core/cache'
import { createSearch } from '../src/core/search'
import { MAIN_SCALE, MAIN_SCALE_OPEN } from './baselines/search-strategies'
import { keystrokes, timedSteps, type ShapeWords } from './scale-shapes'

const [file, impl, words] = process.argv.slice(2)
if (!file || (impl !== 'main' && impl !== 'ours') || !words) {
  process.stderr.write('usage: bench-scale-memory <cache file> <main|ours> <words as JSON>\n')
  process.exit(2)
}
const w = JSON.parse(words) as ShapeWords
const mb = (bytes: number): number => bytes / 2 ** 20

/** The kernel's split of the resident set (Linux): the heap and buffers (anon) against file pages mapped in (SQLite's memory map), in MB. */
function rssSplit(): { anonMb: number | null; fileMb: number | null } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8')
    const kb = (name: string): number | null => {
      const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)
      return m ? Number(m[1]) / 1024 : null
    }
    return { anonMb: kb('RssAnon'), fileMb: kb('RssFile') }
  } catch {
    return { anonMb: null, fileMb: null }
  }
}
const startRss = process.memoryUsage().rss
const cache = openCache(file, { readonly: true, ...(impl === 'main' ? MAIN_SCALE_OPEN : {}) })
try {
  const search = createSearch(cache, {}, impl === 'main' ? MAIN_SCALE : {})
  const opened = process.memoryUsage().rss
  const t0 = performance.now()
  await search.warmUp().done
  const warmMs = performance.now() - t0
  const warmed = process.memoryUsage().rss
  const warmedSplit = rssSplit()
  for (const step of timedSteps(w)) {
    search.resetCaches()
    step.prime?.(search)
    step.run(search)
  }
  for (const word of keystrokes(w)) {
    search.resetCaches()
    for (const q of word) search.page(q, 0, 100)
  }
  const end = process.memoryUsage().rss
  process.stdout.write(
    `${JSON.stringify({
      startMb: mb(startRss),
      openedMb: mb(opened),
      warmedMb: mb(warmed),
      warmMs,
      warmedSplit,
      endMb: mb(end),
      endSplit: rssSplit(),
      peakMb: mb(process.resourceUsage().maxRSS * 1024)
    })}\n`
  )
} finally {
  cache.close()
}
