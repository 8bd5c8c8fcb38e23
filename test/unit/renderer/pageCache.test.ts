import { describe, expect, it } from 'vitest'
import { PageCache } from '../../../src/renderer/src/lib/pageCache'

interface Row {
  offset: number
  tag: string
}

function source(tag = 'a', total = 1_000_000) {
  const calls: number[] = []
  const fetcher = async (offset: number, limit: number): Promise<Row[]> => {
    calls.push(offset)
    await Promise.resolve()
    const rows: Row[] = []
    for (let i = offset; i < Math.min(total, offset + limit); i++) rows.push({ offset: i, tag })
    return rows
  }
  return { fetcher, calls }
}

describe('bounded page cache', () => {
  it('serves rows by offset once their page is loaded', async () => {
    const s = source()
    const cache = new PageCache(s.fetcher, { pageSize: 100, maxPages: 5 })
    expect(cache.get(250)).toBeUndefined()
    await cache.ensure(240, 260)
    expect(cache.get(250)).toEqual({ offset: 250, tag: 'a' })
    expect(s.calls).toEqual([200])
  })

  it('never holds more than maxPages while scrolling through a million rows', async () => {
    const s = source()
    const cache = new PageCache(s.fetcher, { pageSize: 100, maxPages: 8 })
    for (let top = 0; top < 1_000_000; top += 25_000) {
      await cache.ensure(top, top + 150)
      expect(cache.heldPages).toBeLessThanOrEqual(8)
    }
    expect(cache.heldRows).toBeLessThanOrEqual(800)
    expect(cache.get(975_000)).toEqual({ offset: 975_000, tag: 'a' })
    expect(cache.get(0)).toBeUndefined()
  })

  it('evicts the least recently used page, not the oldest loaded', async () => {
    const s = source()
    const cache = new PageCache(s.fetcher, { pageSize: 10, maxPages: 2 })
    await cache.ensure(0, 10)
    await cache.ensure(10, 20)
    cache.get(5)
    await cache.ensure(20, 30)
    expect(cache.has(5)).toBe(true)
    expect(cache.has(15)).toBe(false)
  })

  it('asks for a page once while a request for it is in flight', async () => {
    const s = source()
    const cache = new PageCache(s.fetcher, { pageSize: 100, maxPages: 5 })
    await Promise.all([cache.ensure(0, 50), cache.ensure(10, 90), cache.ensure(99, 100)])
    expect(s.calls).toEqual([0])
  })

  it('drops replies to requests made before a reset', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((r) => (release = r))
    const slow = async (offset: number, limit: number): Promise<Row[]> => {
      await gate
      return Array.from({ length: limit }, (_, i) => ({ offset: offset + i, tag: 'old' }))
    }
    const cache = new PageCache<Row>(slow, { pageSize: 10, maxPages: 5 })
    const pending = cache.ensure(0, 10)
    const fresh = source('new')
    cache.reset(fresh.fetcher)
    release()
    await pending
    expect(cache.get(3)).toBeUndefined()
    await cache.ensure(0, 10)
    expect(cache.get(3)).toEqual({ offset: 3, tag: 'new' })
  })

  it('reports a failed page and fetches it again next time', async () => {
    let fail = true
    const errors: unknown[] = []
    const cache = new PageCache<Row>(
      async (offset) => {
        if (fail) throw new Error('offline')
        return [{ offset, tag: 'ok' }]
      },
      { pageSize: 1, maxPages: 3 }
    )
    cache.onError = (e) => errors.push(e)
    await cache.ensure(0, 1)
    expect(errors).toHaveLength(1)
    expect(cache.get(0)).toBeUndefined()
    fail = false
    await cache.ensure(0, 1)
    expect(cache.get(0)).toEqual({ offset: 0, tag: 'ok' })
  })

  it('tells the view when a page lands', async () => {
    const s = source()
    const cache = new PageCache(s.fetcher, { pageSize: 100, maxPages: 5 })
    let changes = 0
    cache.onChange = () => changes++
    await cache.ensure(0, 300)
    expect(changes).toBe(3)
  })

  it('starts a new result set with a first page already read, and fetches only the pages after it', async () => {
    const old = source('old')
    const cache = new PageCache(old.fetcher, { pageSize: 100, maxPages: 5 })
    await cache.ensure(0, 100)
    const fresh = source('new')
    cache.reset(fresh.fetcher, await fresh.fetcher(0, 100))
    expect(cache.get(0)).toEqual({ offset: 0, tag: 'new' })
    await cache.ensure(0, 200)
    expect(fresh.calls).toEqual([0, 100])
    expect(cache.get(150)).toEqual({ offset: 150, tag: 'new' })
  })
})
