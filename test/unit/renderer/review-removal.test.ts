import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useReviewStore } from '../../../src/renderer/src/stores/review'
import { useTeamStore } from '../../../src/renderer/src/stores/team'

const LIST_ID = '5b0c1a52-4f3e-4a9b-9f0e-2d5c6b7a8e91'

/**
 * A bridge holding one review list the way the core answers for it: items by index, a removal
 * that takes calls out (as `reviewLists.removeCalls` does), and a team cache that may put them
 * back (a refused removal), announced on `review.queue` as the app's review sync does.
 */
function bridge(calls: string[]) {
  let held = [...calls]
  const invoked: Array<[string, unknown]> = []
  const listeners = new Map<string, Array<(p: unknown) => void>>()
  const info = () => ({ id: LIST_ID, name: 'Hafta 49', createdAt: 1, author: 'lena', size: held.length, reviewed: 0 })
  const answer = (channel: string, req: Record<string, unknown>): unknown => {
    switch (channel) {
      case 'reviewLists.list':
        return [info()]
      case 'reviewLists.items': {
        const offset = req['offset'] as number
        const items = held
          .slice(offset, offset + 1)
          .map((callId, i) => ({ callId, position: offset + i, status: 'new', total: null, callMissing: false }))
        return { list: info(), items }
      }
      case 'reviewLists.nextUnreviewed':
        return { callId: held[0], position: 0, status: 'new', total: null, callMissing: false }
      case 'reviewLists.removeCalls': {
        const gone = new Set(req['callIds'] as string[])
        held = held.filter((c) => !gone.has(c))
        return info()
      }
      case 'calls.get':
        return { callId: req['callId'], title: `Call ${String(req['callId'])}`, analysis: [], extra: {} }
      default:
        return null
    }
  }
  const api = {
    invoke(channel: string, req: Record<string, unknown>): Promise<unknown> {
      invoked.push([channel, req])
      return Promise.resolve({ ok: true, value: answer(channel, req) })
    },
    on(event: string, listener: (p: unknown) => void): () => void {
      listeners.set(event, [...(listeners.get(event) ?? []), listener])
      return () => undefined
    }
  }
  return {
    api,
    invoked,
    held: () => held,
    /** The team cache refused the removal: the calls are back where they were. */
    restore(): void {
      held = [...calls]
    },
    emit(event: string, payload: unknown): void {
      for (const l of listeners.get(event) ?? []) l(payload)
    }
  }
}

const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
}

let b: ReturnType<typeof bridge>
beforeEach(() => {
  b = bridge(['c1', 'c2', 'c3'])
  ;(globalThis as { window?: unknown }).window = { api: b.api }
  setActivePinia(createPinia())
})
afterEach(() => {
  delete (globalThis as { window?: unknown }).window
})

describe('review store: removing calls from the open list', () => {
  it('removes the call shown and moves on to the one that took its place', async () => {
    const review = useReviewStore()
    await review.loadLookups()
    await review.open(LIST_ID, 1)
    expect(review.item?.callId).toBe('c2')

    expect(await review.removeCalls()).toBe(true)
    expect(b.invoked.filter(([c]) => c === 'reviewLists.removeCalls')).toEqual([
      ['reviewLists.removeCalls', { id: LIST_ID, callIds: ['c2'] }]
    ])
    expect(review.item?.callId).toBe('c3')
    expect(review.index).toBe(1)
    expect(review.list?.size).toBe(2)
    expect(review.lists[0]?.size).toBe(2)
    expect(review.removalNotice).toEqual({ kind: 'removed', list: 'Hafta 49', count: 1 })
  })

  it('shows the new last call after removing the last one, and nothing once the list is empty', async () => {
    const review = useReviewStore()
    await review.loadLookups()
    await review.open(LIST_ID, 2)
    await review.removeCalls()
    expect(review.item?.callId).toBe('c2')
    expect(review.index).toBe(1)
    await review.removeCalls(['c1', 'c2'])
    expect(review.list?.size).toBe(0)
    expect(review.item).toBeNull()
    expect(review.removalNotice).toEqual({ kind: 'removed', list: 'Hafta 49', count: 2 })
  })

  it('says a removal the team cache refused was undone, and shows the calls back in the list', async () => {
    const review = useReviewStore()
    const team = useTeamStore()
    team.subscribe()
    await review.loadLookups()
    await review.open(LIST_ID, 0)
    await review.removeCalls()
    expect(review.list?.size).toBe(2)

    b.restore()
    b.emit('review.queue', { waiting: 0, refused: 0, error: null, arrived: 0, refusedRemovals: [{ listId: LIST_ID, calls: 1 }] })
    await settle()
    expect(review.removalNotice).toEqual({ kind: 'refused', list: 'Hafta 49', count: 1 })
    expect(review.list?.size).toBe(3)
    expect(review.lists[0]?.size).toBe(3)
    expect(review.item?.callId).toBe('c1')
  })
})
