import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache, type WritePageInput } from '../../../../src/core/cache'
import { silentLogger, systemClock } from '../../../../src/core/platform/node'
import { readCheckpoint, SyncEngine, WaitFeed, type SyncEngineDeps, type SyncStore } from '../../../../src/core/sync'
import { TenantRateLimiter } from '../../../../src/core/ratelimit'
import { SyncProgress, type CallRecord, type SyncOrder, type SyncScopeInput } from '../../../../src/shared/domain'
import { SERVICE_WINDOW } from '../../../../src/shared/service-limits'
import { prng } from '../../../support/prng'
import { failures, generateCalls, record, ScriptedSource, serviceOrder, type Step } from '../../../support/scripted-source'
import { connectionOf } from '../../../../src/core/cache/call-cache'

// The engine driven by a scripted, seeded source (no HTTP) into a real SQLite file: every
// guarantee docs/sync.md gives, checked on the exact set of stored calls and on the
// checkpoint the file holds after each interruption.

const FROM = Date.UTC(2026, 0, 5, 6, 0, 0)
const TO = Date.UTC(2026, 0, 5, 18, 0, 0)
const HOUR = 3_600_000
const scope: SyncScopeInput = { from: FROM, to: TO, results: 'all', includeAnalysis: false }
const KEY = SyncEngine.keyOf(scope)

let dir = ''
let file = ''
let cache: CallCache
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-engine-'))
  file = join(dir, 'cache.db')
  cache = openCache(file)
})
afterEach(() => {
  cache.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A new process: the file opened anew. */
function reopen(): CallCache {
  cache.close()
  cache = openCache(file)
  return cache
}

function engine(source: ScriptedSource, extra: Partial<SyncEngineDeps> = {}): SyncEngine {
  return new SyncEngine({
    source,
    cache: cache.sync,
    clock: systemClock,
    logger: silentLogger,
    rateLimit: { requests: 600, perSeconds: 1 },
    ...extra
  })
}

/** The store with every call the engine makes through it logged by method name. */
function recording(inner: SyncStore, calls: Array<{ method: string; pages?: number }>): SyncStore {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        calls.push({ method: String(prop), pages: prop === 'writePages' ? (args[0] as WritePageInput[]).length : undefined })
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    }
  })
}

function storedIds(key = KEY): string[] {
  return connectionOf(cache)
    .prepare(
      'SELECT c.call_id FROM calls c JOIN scope_members m ON m.call = c.id JOIN sync_scopes s ON s.id = m.scope WHERE s.scope_key = ?'
    )
    .pluck()
    .all(key) as string[]
}

const inRange = (records: readonly CallRecord[], from = FROM, to = TO, order: SyncOrder = 'oldest'): CallRecord[] =>
  serviceOrder(
    records.filter((r) => r.callAt >= from && r.callAt < to),
    order === 'oldest'
  )

/** Every call of the range, each once, and nothing else: in the scope and in the file. */
function expectExactSet(records: readonly CallRecord[]): void {
  const want = inRange(records).map((r) => r.callId)
  const got = storedIds()
  expect(got.length).toBe(want.length)
  expect(new Set(got)).toEqual(new Set(want))
  expect(connectionOf(cache).prepare('SELECT count(*) FROM calls').pluck().get()).toBe(want.length)
}

/**
 * After an interruption the file holds a prefix of the range in the service's order (the
 * newest calls, newest first), and the stored checkpoint asks for exactly the record after it
 * (or, after a window move, the last one stored, to prove the skip). So a resumed run loses
 * nothing and stores nothing twice.
 */
function expectResumableAt(records: readonly CallRecord[], order: SyncOrder): number {
  const ordered = inRange(records, FROM, TO, order)
  const got = new Set(storedIds())
  expect(new Set(ordered.slice(0, got.size).map((r) => r.callId))).toEqual(got)
  const cp = readCheckpoint(cache.sync.getCheckpoint(KEY))
  expect(cp).not.toBeNull()
  expect(cp!.pager.order ?? 'oldest').toBe(order)
  const windowEdge = order === 'oldest' ? cp!.pager.windowStart : cp!.pager.windowEnd!
  const before = ordered.filter((r) => (order === 'oldest' ? r.callAt < windowEdge : r.callAt > windowEdge)).length
  const proving = cp!.pager.expectFirst !== null
  expect(before + cp!.pager.skip).toBe(got.size - (proving ? 1 : 0))
  if (proving) expect(cp!.pager.expectFirst).toBe(ordered[got.size - 1]!.callId)
  // The run's counts were stored with its last page.
  expect(cache.sync.recentRuns(1)[0]!.stored).toBeLessThanOrEqual(got.size)
  return got.size
}

function expectWithinWindow(source: ScriptedSource, order: SyncOrder, pageSize = 500): void {
  for (const p of source.requests) {
    expect(p.skip + p.take).toBeLessThanOrEqual(SERVICE_WINDOW)
    expect(p.take).toBeLessThanOrEqual(pageSize)
    expect(p.ascending).toBe(order === 'oldest')
  }
}

describe.each(['newest', 'oldest'] as const)('the sync engine over a scripted source, %s first', (order) => {
  it.each([1, 2, 3])('syncs dense seconds across the 10,000 window to the exact set (seed %i)', async (seed) => {
    const data = generateCalls(seed, { from: FROM, to: TO, spread: 9_000, crowds: 6 })
    // The service's end is inclusive at whole seconds: a call at exactly `to` is not the range's.
    const records = [...data.records, record('at-the-end', TO)]
    const source = new ScriptedSource({ records, withTotal: seed % 2 === 0 })
    const progress: SyncProgress[] = []
    const final = await engine(source).run(scope, { order, mode: 'full', onProgress: (p) => progress.push(p) })

    expect(final.error).toBeUndefined()
    expect(final.phase).toBe('done')
    expectExactSet(records)
    expect(storedIds()).not.toContain('at-the-end')
    expectWithinWindow(source, order)
    expect(final.windowsDone).toBeGreaterThan(0)
    expect(final.stored).toBe(inRange(records).length)
    expect(cache.sync.getCheckpoint(KEY)).toBeNull()
    expect(cache.coverage(KEY)).toEqual([[FROM, TO]])
    expect(cache.sync.recentRuns(1)[0]).toMatchObject({
      runId: final.runId,
      outcome: 'done',
      stored: final.stored,
      requests: final.requests
    })
    // Progress after every page: counts and position only move forward, and the end says so.
    expect(progress.filter((p) => p.phase === 'fetching').length).toBeGreaterThanOrEqual(final.requests)
    const forward = order === 'oldest' ? 1 : -1
    for (let i = 1; i < progress.length; i++) {
      expect(progress[i]!.stored).toBeGreaterThanOrEqual(progress[i - 1]!.stored)
      expect(forward * (progress[i]!.position! - progress[i - 1]!.position!)).toBeGreaterThanOrEqual(0)
    }
    expect(final).toMatchObject({ position: order === 'oldest' ? TO : FROM, etaSeconds: 0, order })
    expect(progress.slice(1, -1).some((p) => p.etaSeconds !== null && p.etaSeconds > 0)).toBe(true)
  })

  it('stores the first 10,000 of a second too dense to page past, says so, and goes on', async () => {
    const dense = FROM + 3 * HOUR
    const data = generateCalls(4, { from: FROM, to: TO, spread: 3_000 })
    const crowd = Array.from({ length: 10_400 }, (_, i) => record(`dense-${String(i).padStart(5, '0')}`, dense))
    const records = [...data.records, ...crowd]
    const source = new ScriptedSource({ records })
    const final = await engine(source).run(scope, { order, mode: 'full' })

    expect(final.phase).toBe('done')
    expect(final.error?.code).toBe('DenseSecond')
    expect(final.warnings.join(' ')).toMatch(/10,000/)
    // Ties sort by callId: the first 10,000 of the second in the pass's order are reachable.
    const reachable = [...data.records, ...(order === 'oldest' ? crowd.slice(0, SERVICE_WINDOW) : crowd.slice(-SERVICE_WINDOW))]
    expectExactSet(reachable)
    expect(cache.sync.recentRuns(1)[0]!.error?.code).toBe('DenseSecond')
    expectWithinWindow(source, order)
  })

  it.each([
    ['a 429 storm the client gave up on', failures.rateLimited, 'RateLimited'],
    ['a 5xx the client gave up on', failures.serverError, 'ServerError'],
    ['a dropped connection', failures.dropped, 'Network']
  ] as const)('fails on %s with every page before it stored, and resumes to the exact set', async (_what, failure, code) => {
    const random = prng(code.length)
    const data = generateCalls(10 + code.length, { from: FROM, to: TO, spread: 8_000, crowds: 5 })
    let down = false
    const failAt = 3 + Math.floor(random() * 12)
    const source = new ScriptedSource({
      records: data.records,
      script: (n): Step => {
        if (n >= failAt) down = true
        return down ? { kind: 'fail', error: failure() } : { kind: 'answer' }
      }
    })
    const failed = await engine(source).run(scope, { order, mode: 'full' })
    expect(failed.phase).toBe('failed')
    expect(failed.error?.code).toBe(code)
    expect(cache.sync.recentRuns(1)[0]).toMatchObject({ outcome: 'failed', error: { code } })
    const kept = expectResumableAt(data.records, order)
    expect(kept).toBeGreaterThan(0)
    expect(cache.coverage(KEY)).toEqual([])

    // The service is back; a new process continues the same pass.
    down = false
    source.script = undefined
    const at = readCheckpoint(cache.sync.getCheckpoint(KEY))!.pager
    reopen()
    const resumedFrom = source.requests.length
    const final = await engine(source).run(scope, { order, mode: 'full' })
    expect(final.phase).toBe('done')
    expect(final.stored).toBe(inRange(data.records).length - kept)
    expect(source.requests[resumedFrom]).toMatchObject({
      from: at.windowStart,
      skip: at.skip,
      ...(order === 'newest' ? { to: at.windowEnd } : {})
    })
    expectExactSet(data.records)
    expect(cache.sync.recentRuns(2).map((r) => r.outcome)).toEqual(['done', 'failed'])
  })

  it('waits out 429s, reporting the wait, and still ends with the exact set', async () => {
    const data = generateCalls(21, { from: FROM, to: TO, spread: 4_000 })
    const waits = new WaitFeed()
    const source = new ScriptedSource({
      records: data.records,
      waits,
      script: (n): Step => (n % 3 === 0 ? { kind: 'rateLimited', waitMs: 1500 } : { kind: 'answer' })
    })
    const progress: SyncProgress[] = []
    const final = await engine(source, { waits }).run(scope, { order, mode: 'full', onProgress: (p) => progress.push(p) })
    expect(final.phase).toBe('done')
    const waiting = progress.filter((p) => p.phase === 'waiting')
    expect(waiting.length).toBeGreaterThan(0)
    expect(waiting[0]!.waitSeconds).toBe(1.5)
    // Once a page arrives the wait is over.
    const after = progress[progress.indexOf(waiting[0]!) + 1]
    expect(after?.waitSeconds ?? null).toBeNull()
    expectExactSet(data.records)
  })

  it("carries the limiter's pace against the configured limit, and says when the service slowed us down", async () => {
    const data = generateCalls(22, { from: FROM, to: TO, spread: 600 })
    const limiter = new TenantRateLimiter({ requests: 60, perSeconds: 60 })
    limiter.penalize(1_000)
    const progress: SyncProgress[] = []
    const final = await engine(new ScriptedSource({ records: data.records }), { pace: () => limiter.status }).run(scope, {
      mode: 'full',
      onProgress: (p) => progress.push(p)
    })
    expect(progress[0]!.pace).toEqual({ perMinute: 0, limitPerMinute: 60, throttled: true })
    expect(SyncProgress.parse(final).pace?.limitPerMinute).toBe(60)
    // Without a pace source (a team pull) the field is absent.
    const plain = await engine(new ScriptedSource({ records: data.records })).run(scope, { mode: 'full' })
    expect(plain.pace).toBeUndefined()
  })

  it('cancelled at seeded moments, mid-request included, resumes each time and ends with the exact set', async () => {
    const random = prng(99)
    const data = generateCalls(31, { from: FROM, to: TO, spread: 10_000, crowds: 6 })
    const source = new ScriptedSource({ records: data.records })
    const outcomes: string[] = []
    for (let i = 0; i < 8; i++) {
      const ac = new AbortController()
      const cancelAfter = 1 + Math.floor(random() * 5)
      // Either right away (between pages) or once the next request is out.
      const later = random() < 0.5
      let pages = 0
      const final = await engine(source).run(scope, {
        order,
        mode: 'full',
        signal: ac.signal,
        onProgress: (p) => {
          if (p.phase !== 'fetching' || p.requests === 0 || ++pages !== cancelAfter) return
          if (later) setTimeout(() => ac.abort(), 0)
          else ac.abort()
        }
      })
      outcomes.push(final.phase)
      if (final.phase === 'done') break
      expect(final).toMatchObject({ phase: 'cancelled', error: { code: 'Cancelled' } })
      expect(cache.sync.recentRuns(1)[0]!.outcome).toBe('cancelled')
      expectResumableAt(data.records, order)
      reopen()
    }
    expect(outcomes.filter((o) => o === 'cancelled').length).toBeGreaterThanOrEqual(3)
    if (outcomes[outcomes.length - 1] !== 'done') expect((await engine(source).run(scope, { order, mode: 'full' })).phase).toBe('done')
    expectExactSet(data.records)
    expect(cache.sync.getCheckpoint(KEY)).toBeNull()
    expect(source.aborted).toBeGreaterThan(0)
  })

  it('records a cancel before the first page, and covers nothing', async () => {
    const source = new ScriptedSource({ records: generateCalls(5, { from: FROM, to: TO, spread: 100 }).records })
    const ac = new AbortController()
    ac.abort()
    const final = await engine(source).run(scope, { order, mode: 'full', signal: ac.signal })
    expect(final.phase).toBe('cancelled')
    expect(source.requests).toEqual([])
    expect(cache.coverage(KEY)).toEqual([])
    expect(cache.sync.recentRuns(1)[0]!.outcome).toBe('cancelled')
  })

  it('stores what arrived before waiting on the network: no page waits for another', async () => {
    const data = generateCalls(41, { from: FROM, to: TO, spread: 3_000 })
    const calls: Array<{ method: string; pages?: number }> = []
    let giveUp = false
    setTimeout(() => (giveUp = true), 4000).unref()
    const written = (): number => calls.reduce((n, c) => n + (c.pages ?? 0), 0)
    // Page n is answered only once page n-1 is in the file. An engine that held page n-1
    // while it waited for page n would never see it.
    const source = new ScriptedSource({
      records: data.records,
      gate: async (n) => {
        while (written() < n - 1 && !giveUp) await new Promise((r) => setTimeout(r, 2))
      }
    })
    const store = recording(cache.sync, calls)
    const final = await new SyncEngine({
      source,
      cache: store,
      clock: systemClock,
      logger: silentLogger,
      rateLimit: { requests: 600, perSeconds: 1 }
    }).run(scope, { order, mode: 'full' })
    expect(giveUp).toBe(false)
    expect(final.phase).toBe('done')
    expectExactSet(data.records)
  })

  it('commits pages that arrived together as one group, and merges the full-text index once, at the end', async () => {
    const data = generateCalls(51, { from: FROM, to: TO, spread: 12_000 })
    const calls: Array<{ method: string; pages?: number }> = []
    const source = new ScriptedSource({ records: data.records })
    const final = await new SyncEngine({
      source,
      cache: recording(cache.sync, calls),
      clock: systemClock,
      logger: silentLogger,
      rateLimit: { requests: 600, perSeconds: 1 }
    }).run(scope, { order, mode: 'full' })
    expect(final.phase).toBe('done')
    const groups = calls.filter((c) => c.method === 'writePages').map((c) => c.pages!)
    expect(Math.max(...groups)).toBeGreaterThan(1)
    expect(Math.max(...groups)).toBeLessThanOrEqual(20)
    // Every page applied is stored once; the checkpoint in the file is the last page's.
    expect(groups.reduce((a, b) => a + b, 0)).toBe(final.requests)
    const methods = calls.map((c) => c.method)
    expect(methods.filter((m) => m === 'settleIndex')).toHaveLength(1)
    expect(methods.lastIndexOf('writePages')).toBeLessThan(methods.indexOf('settleIndex'))
    expect(methods.indexOf('settleIndex')).toBeLessThan(methods.indexOf('finishRun'))
    expectExactSet(data.records)

    // Nothing new stored: no merge.
    calls.length = 0
    await new SyncEngine({
      source: new ScriptedSource({ records: [] }),
      cache: recording(cache.sync, calls),
      clock: systemClock,
      logger: silentLogger,
      rateLimit: { requests: 600, perSeconds: 1 }
    }).run({ ...scope, from: TO, to: TO + HOUR }, { order, mode: 'full' })
    expect(calls.map((c) => c.method)).not.toContain('settleIndex')
  })

  it('an incremental run fetches only the look-back before the covered end, and picks up what changed there', async () => {
    const data = generateCalls(61, { from: FROM, to: TO, spread: 6_000 })
    const source = new ScriptedSource({ records: data.records })
    await engine(source, { lookbackHours: 2 }).run(scope, { order, mode: 'full' })
    const fullRequests = source.requests.length

    const late = data.records.find((r) => r.callAt >= TO - HOUR)!
    const early = data.records.find((r) => r.callAt < TO - 3 * HOUR)!
    source.records = [
      ...data.records.filter((r) => r !== late),
      { ...late, title: 'late analysis' },
      record('new-in-lookback', TO - 30 * 60_000),
      // Outside the look-back: an incremental run does not see it, by design.
      record('new-before-lookback', early.callAt)
    ]
    const before = source.requests.length
    const final = await engine(source, { lookbackHours: 2 }).run(scope, { order, mode: 'incremental' })
    expect(final.phase).toBe('done')
    expect(source.requests[before]!.from).toBe(TO - 2 * HOUR)
    expect(source.requests.length - before).toBeLessThan(fullRequests)
    const ids = storedIds()
    expect(ids).toContain('new-in-lookback')
    expect(ids).not.toContain('new-before-lookback')
    expect(cache.getCall(late.callId)?.title).toBe('late analysis')
    expect(cache.coverage(KEY)).toEqual([[FROM, TO]])
  })

  it('continues a stored checkpoint only for the same range; another range starts a new pass', async () => {
    const data = generateCalls(71, { from: FROM, to: TO, spread: 5_000 })
    const source = new ScriptedSource({
      records: data.records,
      script: (n): Step => (n >= 4 ? { kind: 'fail', error: failures.dropped() } : { kind: 'answer' })
    })
    await engine(source).run(scope, { order, mode: 'full' })
    const kept = expectResumableAt(data.records, order)
    source.script = undefined
    const other = { ...scope, to: TO - HOUR }
    const before = source.requests.length
    const final = await engine(source).run(other, { order, mode: 'full' })
    expect(final.phase).toBe('done')
    expect(source.requests[before]!.from).toBe(FROM)
    // The new pass reads its range from the start; what the old pass stored is written again.
    expect(kept).toBeGreaterThan(0)
    expect(final.stored).toBe(inRange(data.records, FROM, TO - HOUR).length)
    expect(cache.coverage(KEY)).toEqual([[FROM, TO - HOUR]])
  })

  it('records and reports the run under the id it is given, and puts call types in the catalog once', async () => {
    cache.upsertCallTypes([{ value: 'Fatura', description: 'Billing' }])
    const source = new ScriptedSource({ records: generateCalls(81, { from: FROM, to: TO, spread: 300 }).records })
    const progress: SyncProgress[] = []
    const typed = { ...scope, callTypes: ['Fatura', 'İptal'] }
    const final = await engine(source).run(typed, { order, mode: 'full', runId: 'task-7', onProgress: (p) => progress.push(p) })
    expect(final.runId).toBe('task-7')
    expect(new Set(progress.map((p) => p.runId))).toEqual(new Set(['task-7']))
    expect(cache.sync.recentRuns(5).map((r) => r.runId)).toEqual(['task-7'])
    expect(cache.callTypes()).toEqual([
      { value: 'Fatura', description: 'Billing' },
      { value: 'İptal', description: '' }
    ])
    expect(source.requests[0]!.callTypes).toEqual(['Fatura', 'İptal'])
  })
})
