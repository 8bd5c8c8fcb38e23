import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { useSyncStore } from '../../../src/renderer/src/stores/sync'
import type { ScopeStatus, SyncProgress, SyncScopeInput } from '../../../src/shared/domain'

/**
 * The sync store against a bridge the test drives: `sync.start` answers when the test says
 * so and progress events are delivered by hand, so the order of reply and events (which
 * travel on different channels in browser mode) is the test's to choose.
 */
function bridge() {
  const listeners = new Map<string, Array<(p: unknown) => void>>()
  let answerStart: ((runId: string) => void) | null = null
  /** What `sync.scopes` answers: the active account's (main's) view. */
  const scopes: { value: { scopes: ScopeStatus[]; active: SyncProgress | null; last: SyncProgress | null } } = {
    value: { scopes: [], active: null, last: null }
  }
  const api = {
    invoke(channel: string): Promise<unknown> {
      if (channel === 'sync.start') return new Promise((resolve) => (answerStart = (runId) => resolve({ ok: true, value: { runId } })))
      if (channel === 'sync.scopes') return Promise.resolve({ ok: true, value: scopes.value })
      return Promise.resolve({ ok: true, value: { path: null, sizeBytes: 0, calls: 0, lastSyncAt: null } })
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
    scopes,
    emit(p: SyncProgress): void {
      for (const l of listeners.get('sync.progress') ?? []) l(p)
    },
    answerStart(runId: string): void {
      if (!answerStart) throw new Error('sync.start was not called')
      answerStart(runId)
    }
  }
}

const SCOPE: SyncScopeInput = { from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2026-01-02T00:00:00Z'), results: 'answered' }

function progress(runId: string, phase: SyncProgress['phase'], stored: number): SyncProgress {
  return {
    runId,
    phase,
    stored,
    requests: 1,
    windowsDone: phase === 'done' ? 1 : 0,
    position: null,
    from: SCOPE.from,
    to: SCOPE.to,
    requestsPerMinute: 60,
    recordsPerSecond: 100,
    etaSeconds: phase === 'done' ? 0 : 1,
    waitSeconds: null,
    warnings: []
  }
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r))

// Each test drives a bridge of its own, with a fresh Pinia.
let b: ReturnType<typeof bridge>
beforeEach(() => {
  b = bridge()
  ;(globalThis as { window?: unknown }).window = { api: b.api }
  setActivePinia(createPinia())
})
afterEach(() => {
  delete (globalThis as { window?: unknown }).window
})

describe('sync store: the panel shows the run just started', () => {
  it("never shows the last run's 'done' after Start, before the new run's reply", async () => {
    const sync = useSyncStore()
    sync.subscribe(() => undefined)
    // The last run (another account's, or this one's earlier) finished: its panel says done.
    b.emit(progress('run-1', 'done', 462))
    expect(sync.progress?.phase).toBe('done')
    const starting = sync.start(SCOPE)
    // Start was pressed and the reply is slow (a loaded machine): not run-1's "done".
    expect(sync.progress?.phase).toBe('planning')
    expect(sync.progress?.stored).toBe(0)
    b.answerStart('run-2')
    await starting
    expect(sync.runId).toBe('run-2')
    expect(sync.progress).toMatchObject({ runId: 'run-2', phase: 'planning' })
    b.emit(progress('run-2', 'done', 181))
    expect(sync.progress).toMatchObject({ runId: 'run-2', phase: 'done', stored: 181 })
    expect(sync.runId).toBeNull()
  })

  it("keeps the run's events that came in before the reply to Start", async () => {
    const sync = useSyncStore()
    const finished: SyncProgress[] = []
    sync.subscribe((p) => finished.push(p))
    const starting = sync.start(SCOPE)
    b.emit(progress('run-2', 'fetching', 100))
    b.emit(progress('run-2', 'done', 181))
    await turn()
    b.answerStart('run-2')
    await starting
    // The late reply does not set the finished run back to "planning", nor make it running again.
    expect(sync.progress).toMatchObject({ runId: 'run-2', phase: 'done', stored: 181 })
    expect(sync.runId).toBeNull()
    expect(finished.map((p) => p.phase)).toEqual(['done'])
  })

  it('puts the last panel back when the run cannot start', async () => {
    const sync = useSyncStore()
    sync.subscribe(() => undefined)
    b.emit(progress('run-1', 'done', 462))
    b.api.invoke = (channel: string) =>
      channel === 'sync.start'
        ? Promise.resolve({ ok: false, error: { code: 'InvalidInput', message: 'A sync is already running.' } })
        : Promise.resolve({ ok: true, value: null })
    await sync.start(SCOPE)
    expect(sync.error?.code).toBe('InvalidInput')
    expect(sync.progress).toMatchObject({ runId: 'run-1', phase: 'done', stored: 462 })
  })
})

describe('sync store: an account switch', () => {
  const scope = (scopeKey: string, calls: number): ScopeStatus => ({
    scopeKey,
    filters: { callTypes: [], direction: null, results: 'answered', hasNewRequest: null, includeAnalysis: false },
    coveredFrom: SCOPE.from,
    coveredTo: SCOPE.to,
    lastSuccessAt: SCOPE.to,
    lastOutcome: 'done',
    calls
  })

  it("shows the newly active account's last run, never the other account's", async () => {
    const sync = useSyncStore()
    sync.subscribe(() => undefined)
    // Account A synced: its run's panel, its scope.
    b.emit(progress('run-a', 'done', 462))
    b.scopes.value = { scopes: [scope('a', 462)], active: null, last: progress('run-a', 'done', 462) }
    await sync.refresh()
    expect(sync.progress).toMatchObject({ runId: 'run-a', stored: 462 })

    // B becomes active; main knows B's last run of this app run.
    b.scopes.value = { scopes: [scope('b', 181)], active: null, last: progress('run-b', 'failed', 181) }
    await sync.accountChanged()
    expect(sync.progress).toMatchObject({ runId: 'run-b', phase: 'failed', stored: 181 })
    expect(sync.scopes.map((s) => s.scopeKey)).toEqual(['b'])
    // The sync screen opened again reads the same.
    await sync.refresh()
    expect(sync.progress?.runId).toBe('run-b')

    // C never synced since the app started: no panel at all.
    b.scopes.value = { scopes: [], active: null, last: null }
    await sync.accountChanged()
    expect(sync.progress).toBeNull()
    expect(sync.scopes).toEqual([])
  })

  it("drops the last events of the left account's run, cancelled by the switch, and a reply asked before it", async () => {
    const sync = useSyncStore()
    const finished: SyncProgress[] = []
    sync.subscribe((p) => finished.push(p))
    b.emit(progress('run-a', 'fetching', 50))
    expect(sync.runId).toBe('run-a')
    // A refresh asked while A was active answers after the switch: A's scopes must not show.
    let answerOld: (v: unknown) => void = () => undefined
    const invoke = b.api.invoke
    b.api.invoke = (channel: string) => (channel === 'sync.scopes' ? new Promise((resolve) => (answerOld = resolve)) : invoke(channel))
    const stale = sync.refresh()
    b.api.invoke = invoke
    b.scopes.value = { scopes: [scope('b', 7)], active: null, last: null }
    await sync.accountChanged()
    answerOld({ ok: true, value: { scopes: [scope('a', 50)], active: progress('run-a', 'fetching', 50), last: null } })
    await stale
    // The switch cancelled A's run; its last event arrives late, on its own channel.
    b.emit(progress('run-a', 'cancelled', 60))
    expect(sync.progress).toBeNull()
    expect(sync.runId).toBeNull()
    expect(sync.scopes.map((s) => s.scopeKey)).toEqual(['b'])
    expect(finished).toEqual([])
    // B's own runs show as before.
    b.emit(progress('run-b', 'done', 7))
    expect(sync.progress).toMatchObject({ runId: 'run-b', phase: 'done' })
  })
})
