import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../src/core/cache'
import { connectionOf } from '../../../src/core/cache/call-cache'
import type { GetCallsParams } from '../../../src/core/client'
import { silentLogger, systemClock } from '../../../src/core/platform/node'
import { runMembershipPasses, type MembershipResult, type SyncEngineDeps, type SyncPage, type SyncSource } from '../../../src/core/sync'
import { describePass, type MembershipPass } from '../../../src/shared/domain'
import { FROM_MS, startEnv, TO_MS, type SyncEnv } from './helpers'

// The service answers the passes' requests one at a time, oldest first, and only once the
// engine has done everything it can do without another answer. Before each answer the
// requests still waiting are counted: one alone while a pass has not started means the
// tenant's limiter would go idle while there was work to give it — the pipeline drained at a
// window move (the next window starts at the last second of the window's last page) or at a
// pass's end. Run together, the passes keep each other's requests waiting at every moment.

const LIMIT = { requests: 100_000, perSeconds: 1 }
// Answered (about 76 %) and direction 1 (about 70 %) of 15,000 calls each need a second window.
const PASSES: MembershipPass[] = [
  { kind: 'answered' },
  { kind: 'direction', value: 1, name: '' },
  { kind: 'direction', value: 2, name: '' },
  { kind: 'newRequest' }
]

const passOf = (p: GetCallsParams): string => JSON.stringify([p.callTypes, p.direction, p.results, p.hasNewRequest])

interface Held {
  pass: string
  window: number
  arrived: boolean
  settled: boolean
  release: (() => void) | null
}

/** The real service behind a gate: each answer is held until the test lets it through. */
class GatedSource implements SyncSource {
  readonly held: Held[] = []

  constructor(private readonly inner: SyncSource) {}

  getCalls(p: GetCallsParams, signal?: AbortSignal): Promise<SyncPage> {
    const h: Held = { pass: passOf(p), window: p.to, arrived: false, settled: false, release: null }
    this.held.push(h)
    return (async () => {
      try {
        const page = await this.inner.getCalls(p, signal)
        h.arrived = true
        await new Promise<void>((resolve, reject) => {
          h.release = resolve
          const onAbort = (): void => reject(new DOMException('aborted', 'AbortError'))
          if (signal?.aborted) onAbort()
          signal?.addEventListener('abort', onAbort, { once: true })
        })
        return page
      } finally {
        h.settled = true
      }
    })()
  }

  get pending(): Held[] {
    return this.held.filter((h) => !h.settled)
  }

  /** Waits until every request asked for is back from the service and the engine asks for nothing more. */
  async quiet(): Promise<void> {
    for (let round = 0; round < 2_000; round++) {
      const issued = this.held.length
      for (let i = 0; i < 3; i++) await new Promise((r) => setTimeout(r, 2))
      if (this.held.length === issued && this.pending.every((h) => h.arrived && h.release)) return
    }
    throw new Error('the engine never settled')
  }
}

interface Drain {
  pending: number
  waitingPasses: number
  cause: string
}

/** Runs the passes behind the gate; the moments the requests drained while a pass had not started. */
async function gatedRun(env: SyncEnv, cache: CallCache, concurrency?: number): Promise<{ result: MembershipResult; drains: Drain[] }> {
  const gate = new GatedSource(env.session)
  const deps: SyncEngineDeps = { source: gate, cache: cache.sync, clock: systemClock, logger: silentLogger, rateLimit: LIMIT }
  let result: MembershipResult | null = null
  const running = runMembershipPasses(deps, { from: FROM_MS, to: TO_MS }, { passes: PASSES, concurrency, mode: 'full' }).then(
    (r) => (result = r)
  )
  const drains: Drain[] = []
  for (let step = 0; step < 5_000 && result === null; step++) {
    await gate.quiet()
    const pending = gate.pending
    if (pending.length === 0) {
      await new Promise((r) => setTimeout(r, 5))
      continue
    }
    const started = new Set(gate.held.map((h) => h.pass))
    const waitingPasses = PASSES.length - started.size
    if (pending.length <= 1 && waitingPasses > 0) {
      const last = pending[0]!
      const laterSameWindow = gate.held.some(
        (h) => h.pass === last.pass && h.window === last.window && gate.held.indexOf(h) > gate.held.indexOf(last)
      )
      drains.push({
        pending: pending.length,
        waitingPasses,
        cause: laterSameWindow ? 'within a window' : 'the last page of a window or pass'
      })
    }
    pending[0]!.release!()
  }
  await running
  return { result: result!, drains }
}

const members = (cache: CallCache): string[] =>
  connectionOf(cache)
    .prepare(
      `SELECT s.scope_key || ' ' || c.call_id AS m FROM scope_members sm
       JOIN sync_scopes s ON s.id = sm.scope JOIN calls c ON c.id = sm.call ORDER BY m`
    )
    .pluck()
    .all() as string[]

let env: SyncEnv
let second: CallCache
let third: CallCache
let uninterrupted = 0

beforeAll(async () => {
  env = await startEnv({ calls: 15_000, seed: 23 })
  second = openCache(`${env.file}.second.db`)
  third = openCache(`${env.file}.third.db`)
}, 60_000)

afterAll(async () => {
  second?.close()
  third?.close()
  await env?.close()
})

describe('membership passes keep the limiter fed', () => {
  it('never leave one request waiting while a pass is yet to start, across window moves and pass ends', async () => {
    const { result, drains } = await gatedRun(env, env.cache)
    expect(result.phase).toBe('done')
    uninterrupted = result.requests
    expect(result.passes.map((p) => describePass(p.pass)).sort()).toEqual(PASSES.map(describePass).sort())
    // The set does cross window moves: two passes read more than one window.
    expect(result.passes.filter((p) => p.progress.stored > 10_000)).toHaveLength(2)
    expect(drains).toEqual([])
  }, 120_000)

  it('store the same calls and memberships as the passes run one at a time', async () => {
    const { result } = await gatedRun(env, second, 1)
    expect(result.phase).toBe('done')
    const together = members(env.cache)
    expect(together.length).toBeGreaterThan(20_000)
    expect(members(second)).toEqual(together)
    const calls = (c: CallCache): number => connectionOf(c).prepare('SELECT count(*) FROM calls').pluck().get() as number
    expect(calls(second)).toBe(calls(env.cache))
  }, 120_000)

  it('stopped with three passes under way, resume each where it stopped: no call lost, none read twice', async () => {
    let pages = 0
    const ac = new AbortController()
    const source: SyncSource = {
      getCalls: async (p, signal) => {
        const page = await env.session.getCalls(p, signal)
        // Well into the set: the first three passes are running, none is done.
        if (++pages === 12) ac.abort()
        return page
      }
    }
    // No look-back: a pass done before the stop reads nothing again, so the requests add up.
    const deps: SyncEngineDeps = { source, cache: third.sync, clock: systemClock, logger: silentLogger, rateLimit: LIMIT, lookbackHours: 0 }
    const range = { from: FROM_MS, to: TO_MS }
    const stopped = await runMembershipPasses(deps, range, { passes: PASSES, signal: ac.signal })
    expect(stopped.phase).toBe('cancelled')
    expect(stopped.passes.filter((p) => p.progress.phase === 'cancelled').length).toBe(3)
    const resumed = await runMembershipPasses(deps, range, { passes: PASSES })
    expect(resumed.phase).toBe('done')
    expect(members(third)).toEqual(members(second))
    // Only the pages in flight at the stop (at most three per pass) are asked for again.
    expect(stopped.requests + resumed.requests).toBeLessThanOrEqual(uninterrupted + 9)
  }, 120_000)
})
