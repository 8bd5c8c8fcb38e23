import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { wordsNear } from '../../../../bench/query'
import { ingest } from '../../../../bench/search'
import { createSearchReader, openCache, type CallCache, type SearchReader } from '../../../../src/core/cache'
import { createSearch, searchTuning } from '../../../../src/core/search'
import { datePage } from '../../../../src/core/search/paging/date-page'
import { WINDOW_MAX_OFFSET } from '../../../../src/core/search/plan/page-plan'
import { SearchContext } from '../../../../src/core/search/search-context'
import { SearchQuery } from '../../../../src/shared/domain'

// The first page on a search just opened (window-slice) reads the window's slice and nothing
// whole: not every call's quarter hour, not a scope's members. Those are what a deep page
// after a count needs to know whether it may skip by counting; reading them to decide a first
// page cost the keystroke most of a second at 1,000,000 calls.
const N = 5000

let dir: string
let cache: CallCache
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-opened-page-'))
  cache = openCache(join(dir, 'cache.db'))
  ingest(cache, N, 20, () => {})
})
afterAll(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The real reader, with the whole-column reads it is asked for written down. */
function watchedReader(reads: string[]): SearchReader {
  const reader = createSearchReader(cache)
  const columns = reader.columns
  const whole = new Set(['quarters', 'membersOf', 'idsByDate', 'textItems', 'numericItems'])
  const watched = new Proxy(columns, {
    get(target, name, receiver) {
      const v = Reflect.get(target, name, receiver) as unknown
      if (typeof v !== 'function') return v
      return (...args: unknown[]) => {
        // textItems/numericItems with a span read the window's items only: not a whole column.
        const spanned = args.length > 1 && args[1] !== null && typeof args[1] === 'object' && 'lo' in (args[1] as object)
        if (typeof name === 'string' && whole.has(name) && !spanned) reads.push(name)
        return (v as (...a: unknown[]) => unknown).apply(target, args)
      }
    }
  })
  return { ...reader, columns: watched }
}

function openedContext(reads: string[]): SearchContext {
  return new SearchContext(watchedReader(reads), searchTuning())
}

describe('the first page on a search just opened', () => {
  it('reads no whole column, and serves the page plain evaluation gives', () => {
    const [half] = wordsNear(0.5, 1, N)
    const plain = createSearch(cache, { bitmaps: false })
    for (const text of [half!, `${half} language:en`, `-${half}`]) {
      const reads: string[] = []
      const ctx = openedContext(reads)
      const q = SearchQuery.parse({ text })
      const { page, trace } = datePage(ctx, ctx.prepare(q), 0, 100)
      if (text === half) expect(trace.plan, text).toBe('window-first')
      expect(reads, text).toEqual([])
      expect(
        page.rows.map((r) => r.callId),
        text
      ).toEqual(plain.page(q, 0, 100).rows.map((r) => r.callId))
    }
  })

  it('still skips by counting for a deep page after the count, once the order is kept', () => {
    const [half] = wordsNear(0.5, 1, N)
    const reads: string[] = []
    const ctx = openedContext(reads)
    ctx.columns.byDate()
    const q = SearchQuery.parse({ text: half! })
    const p = ctx.prepare(q)
    p.state.count = createSearch(cache).count(q)
    expect(p.state.count).toBeGreaterThan(WINDOW_MAX_OFFSET + 200)
    // Past the first pages (WINDOW_MAX_OFFSET), before the end.
    const offset = p.state.count - 120
    const { page, trace } = datePage(ctx, p, offset, 50)
    expect(trace.plan).toBe('count-skip')
    expect(trace.inputs.rangeCountable).toBe(true)
    expect(page.rows.map((r) => r.callId)).toEqual(
      createSearch(cache, { bitmaps: false })
        .page(q, offset, 50)
        .rows.map((r) => r.callId)
    )
  })
})
