import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useTeamStore } from '../../../src/renderer/src/stores/team'
import type { TeamSchedule } from '../../../src/shared/team'

/**
 * The team store against a bridge the test drives: `team.status` answers when the test says
 * so and `team.schedule` is announced by hand, so the order of a status reply and an
 * announcement (different channels in browser mode) is the test's to choose.
 */
function bridge() {
  const listeners = new Map<string, Array<(p: unknown) => void>>()
  const pending: Array<(value: unknown) => void> = []
  const api = {
    invoke(channel: string): Promise<unknown> {
      if (channel === 'team.status') return new Promise((resolve) => pending.push((value) => resolve({ ok: true, value })))
      return Promise.resolve({ ok: true, value: null })
    },
    on(event: string, listener: (p: unknown) => void): () => void {
      listeners.set(event, [...(listeners.get(event) ?? []), listener])
      return () =>
        listeners.set(
          event,
          (listeners.get(event) ?? []).filter((l) => l !== listener)
        )
    }
  }
  return {
    api,
    announce(s: TeamSchedule): void {
      for (const l of listeners.get('team.schedule') ?? []) l(s)
    },
    emit(event: string, payload: unknown): void {
      for (const l of listeners.get(event) ?? []) l(payload)
    },
    answerStatus(schedule: TeamSchedule): void {
      const answer = pending.shift()
      if (!answer) throw new Error('team.status was not called')
      answer({ source: null, cursor: null, pulledAt: null, workers: [], error: null, active: null, schedule })
    }
  }
}

const BEFORE: TeamSchedule = { everyMinutes: 5, lastSuccessAt: null, nextAt: 1_000, failures: 0, lastError: null }
const AFTER: TeamSchedule = { everyMinutes: 5, lastSuccessAt: 2_000, nextAt: 302_000, failures: 0, lastError: null }
const turn = (): Promise<void> => new Promise((r) => setImmediate(r))

let b: ReturnType<typeof bridge>
beforeEach(() => {
  b = bridge()
  ;(globalThis as { window?: unknown }).window = { api: b.api }
  setActivePinia(createPinia())
})
afterEach(() => {
  delete (globalThis as { window?: unknown }).window
})

describe('team store: the schedule the status bar shows', () => {
  it("keeps a pull's announced end when a status read begun before it answers after it", async () => {
    const team = useTeamStore()
    team.watchSchedule()
    const reading = team.refresh()
    // The pull ends while the read is on its way: the controller announces the new schedule…
    b.announce(AFTER)
    expect(team.schedule).toEqual(AFTER)
    // …and the read answers with the schedule as it stood when it began.
    b.answerStatus(BEFORE)
    await reading
    await turn()
    expect(team.schedule).toEqual(AFTER)
  })

  it("takes the status read's schedule when nothing was announced meanwhile", async () => {
    const team = useTeamStore()
    team.watchSchedule()
    const reading = team.refresh()
    b.answerStatus(AFTER)
    await reading
    expect(team.schedule).toEqual(AFTER)
  })
})

describe("team store: the team's review work arriving", () => {
  it('counts the syncs that brought review rows, not the local saves nor the empty syncs', () => {
    const team = useTeamStore()
    team.subscribe()
    expect(team.reviewArrivals).toBe(0)
    // A local save: the queue grows, nothing arrived.
    b.emit('review.queue', { waiting: 1, refused: 0 })
    // A live sync that pushed it and brought nothing new.
    b.emit('review.queue', { waiting: 0, refused: 0, error: null, arrived: 0 })
    expect(team.reviewArrivals).toBe(0)
    // A lead's assignments (or a reviewer's statuses) pulled: the screens read again.
    b.emit('review.queue', { waiting: 0, refused: 0, error: null, arrived: 3 })
    expect(team.reviewArrivals).toBe(1)
    expect(team.queue).toEqual({ waiting: 0, refused: 0, error: null, arrived: 3 })
  })
})
