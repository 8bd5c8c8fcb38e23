import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { LIST_PAGE, useListCallsStore } from '../../../src/renderer/src/stores/listCalls'
import { useReviewStore } from '../../../src/renderer/src/stores/review'

const LIST_ID = '7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f'

/**
 * A bridge holding one review list as the core answers for it: items in pages (up to the
 * contract's 1,000 a read) with their titles, and a removal that takes calls out.
 */
function bridge(size: number) {
  let held = Array.from({ length: size }, (_, i) => `c${i}`)
  const reads: Array<{ offset: number; limit: number }> = []
  const removed: string[][] = []
  const info = () => ({ id: LIST_ID, name: 'Kasım', createdAt: 1, author: 'lena', size: held.length, reviewed: 0 })
  const item = (callId: string, position: number) => ({
    callId,
    position,
    status: 'new',
    total: null,
    callMissing: false,
    title: `Title ${callId}`,
    callAt: 1_700_000_000_000 + position
  })
  const answer = (channel: string, req: Record<string, unknown>): unknown => {
    switch (channel) {
      case 'reviewLists.list':
        return [info()]
      case 'reviewLists.items': {
        const offset = req['offset'] as number
        const limit = Math.min(1000, req['limit'] as number)
        reads.push({ offset, limit })
        return { list: info(), items: held.slice(offset, offset + limit).map((c, i) => item(c, offset + i)) }
      }
      case 'reviewLists.nextUnreviewed':
        return item(held[0]!, 0)
      case 'reviewLists.removeCalls': {
        const gone = new Set(req['callIds'] as string[])
        removed.push([...gone])
        held = held.filter((c) => !gone.has(c))
        return info()
      }
      case 'calls.get':
        return { callId: req['callId'], title: `Title ${String(req['callId'])}`, analysis: [], extra: {} }
      default:
        return null
    }
  }
  const api = {
    invoke(channel: string, req: Record<string, unknown>): Promise<unknown> {
      return Promise.resolve({ ok: true, value: answer(channel, req) })
    },
    on(): () => void {
      return () => undefined
    }
  }
  return {
    api,
    reads,
    removed,
    held: () => held,
    /** The team cache refused the removals: every call is back where it was. */
    restore(): void {
      held = Array.from({ length: size }, (_, i) => `c${i}`)
    },
    /** Calls went from the list elsewhere (a lead's removal pulled in). */
    drop(n: number): void {
      held = held.slice(n)
    }
  }
}

let b: ReturnType<typeof bridge>
function setUp(size: number): void {
  b = bridge(size)
  ;(globalThis as { window?: unknown }).window = { api: b.api }
  setActivePinia(createPinia())
}
beforeEach(() => setUp(250))
afterEach(() => {
  delete (globalThis as { window?: unknown }).window
})

const ids = (from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `c${from + i}`)

describe("review mode's list of the list's calls", () => {
  it('shows a page at a time, in the list order, and the keys move across pages', async () => {
    const calls = useListCallsStore()
    await calls.load(LIST_ID, 0)
    expect(calls.size).toBe(250)
    expect(calls.rows.map((r) => r.callId)).toEqual(ids(0, LIST_PAGE - 1))
    expect(calls.rows[3]).toMatchObject({ title: 'Title c3', position: 3 })

    await calls.move(LIST_PAGE - 1)
    expect(calls.pageAt).toBe(0)
    await calls.move(1)
    expect(calls.cursor).toBe(LIST_PAGE)
    expect(calls.pageAt).toBe(LIST_PAGE)
    expect(calls.rows[0]?.callId).toBe(`c${LIST_PAGE}`)
    await calls.move(-1)
    expect(calls.pageAt).toBe(0)
    // Never past either end.
    await calls.move(10_000)
    expect(calls.cursor).toBe(249)
    expect(calls.rows.at(-1)?.callId).toBe('c249')
    await calls.move(-10_000)
    expect(calls.cursor).toBe(0)
  })

  it('ticks one row, a shift range from the last tick in either direction, and all', async () => {
    const calls = useListCallsStore()
    await calls.load(LIST_ID, 0)
    calls.tick(2, false)
    calls.tick(5, true)
    expect(calls.count).toBe(4)
    expect(await calls.tickedIds()).toEqual(ids(2, 5))
    // A tick on a ticked row drops it; shift then ranges from there.
    calls.tick(4, false)
    expect(await calls.tickedIds()).toEqual(['c2', 'c3', 'c5'])
    calls.tick(8, false)
    calls.tick(6, true)
    expect(await calls.tickedIds()).toEqual(['c2', 'c3', 'c5', 'c6', 'c7', 'c8'])
    expect(calls.tickedBefore(6)).toBe(3)
    expect(calls.tickedBefore(0)).toBe(0)

    calls.tickAll()
    expect(calls.allTicked).toBe(true)
    expect(calls.count).toBe(250)
    expect(await calls.tickedIds()).toEqual(ids(0, 249))
    calls.tickAll()
    expect(calls.count).toBe(0)
  })

  it('reads the ids of a range over pages never shown, a read per thousand', async () => {
    setUp(2500)
    const calls = useListCallsStore()
    await calls.load(LIST_ID, 0)
    calls.tick(10, false)
    calls.tick(2200, true)
    b.reads.length = 0
    const got = await calls.tickedIds()
    expect(got).toEqual(ids(10, 2200))
    expect(b.reads.map((r) => r.offset)).toEqual([10, 1010, 2010])
  })

  it('a new list starts with nothing ticked; a list that shrank shows its last page', async () => {
    const calls = useListCallsStore()
    await calls.load(LIST_ID, 0)
    await calls.move(220)
    calls.tick(220, false)
    expect(calls.pageAt).toBe(200)
    const review = useReviewStore()
    await review.loadLookups()
    await review.open(LIST_ID, 0)
    await review.removeCalls(ids(150, 249))
    await calls.load(LIST_ID)
    expect(calls.size).toBe(150)
    expect(calls.pageAt).toBe(100)
    expect(calls.cursor).toBe(149)
    await calls.load('another-list', 0)
    expect(calls.count).toBe(0)
  })

  it('drops the ticks when calls come or go under them, as they would name other calls', async () => {
    const calls = useListCallsStore()
    await calls.load(LIST_ID, 0)
    calls.tick(4, false)
    await calls.load(LIST_ID)
    expect(calls.count).toBe(1)
    b.drop(2)
    await calls.load(LIST_ID)
    expect(calls.size).toBe(248)
    expect(calls.count).toBe(0)
  })

  it('a removal the team cache refused brings the ticked calls back into the list, and says so', async () => {
    const review = useReviewStore()
    const calls = useListCallsStore()
    await review.loadLookups()
    await review.open(LIST_ID, 0)
    await calls.load(LIST_ID, 0)
    calls.tick(10, false)
    calls.tick(12, true)
    await review.removeCalls(await calls.tickedIds(), 0)
    calls.clear()
    await calls.load(LIST_ID)
    expect(calls.rows.slice(9, 11).map((r) => r.callId)).toEqual(['c9', 'c13'])

    b.restore()
    await review.removalsRefused([{ listId: LIST_ID, calls: 3 }])
    expect(review.removalNotice).toEqual({ kind: 'refused', list: 'Kasım', count: 3 })
    expect(review.list?.size).toBe(250)
    await calls.load(LIST_ID)
    expect(calls.rows.slice(9, 14).map((r) => r.callId)).toEqual(ids(9, 13))
  })

  it('removing ticked calls before the one shown keeps review mode on it', async () => {
    const review = useReviewStore()
    const calls = useListCallsStore()
    await review.loadLookups()
    await review.open(LIST_ID, 6)
    expect(review.item?.callId).toBe('c6')
    await calls.load(LIST_ID, 0)
    calls.tick(1, false)
    calls.tick(3, true)
    calls.tick(9, false)
    const gone = await calls.tickedIds()
    expect(await review.removeCalls(gone, review.index - calls.tickedBefore(review.index))).toBe(true)
    expect(b.removed).toEqual([['c1', 'c2', 'c3', 'c9']])
    expect(review.item?.callId).toBe('c6')
    expect(review.index).toBe(3)
    expect(review.removalNotice).toEqual({ kind: 'removed', list: 'Kasım', count: 4 })
  })
})
