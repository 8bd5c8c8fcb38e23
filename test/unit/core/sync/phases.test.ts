import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type CallCache, type WritePageInput } from '../../../../src/core/cache'
import { CallsightError } from '../../../../src/core/errors'
import { silentLogger } from '../../../../src/core/platform/node'
import {
  FetchPipeline,
  foldPage,
  initialPager,
  newPass,
  passStart,
  planRun,
  RunReport,
  scopeFilters,
  StoreGroup,
  type PagerState,
  type SyncPage,
  type SyncPageRequest,
  type SyncSource
} from '../../../../src/core/sync'
import type { Logger, LogLevel } from '../../../../src/core/platform'
import type { SyncProgress, SyncScope } from '../../../../src/shared/domain'
import { SERVICE_WINDOW } from '../../../../src/shared/service-limits'
import { record } from '../../../support/scripted-source'

// Each phase of the sync engine on its own: plan, fetch pipeline, store group, report.

const FROM = Date.UTC(2026, 0, 5, 6, 0, 0)
const TO = Date.UTC(2026, 0, 5, 18, 0, 0)
const HOUR = 3_600_000
const scope: SyncScope = { from: FROM, to: TO, callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: false }
const filters = scopeFilters(scope)

class MemoryLogger implements Logger {
  readonly lines: Array<{ level: LogLevel; message: string }> = []
  log(level: LogLevel, message: string): void {
    this.lines.push({ level, message })
  }
}

describe('plan phase', () => {
  let dir = ''
  let cache: CallCache
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'callsight-plan-'))
    cache = openCache(join(dir, 'cache.db'))
  })
  afterEach(() => {
    cache.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('starts an incremental pass at the look-back before the end of the coverage that holds `from`', () => {
    expect(passStart([], scope, 2 * HOUR)).toBe(FROM)
    expect(passStart([[FROM - HOUR, TO - 4 * HOUR]], scope, 2 * HOUR)).toBe(TO - 6 * HOUR)
    // Never before `from`, and a coverage past `to` counts up to `to` only.
    expect(passStart([[FROM - HOUR, FROM + HOUR]], scope, 2 * HOUR)).toBe(FROM)
    expect(passStart([[FROM, TO + 10 * HOUR]], scope, 2 * HOUR)).toBe(TO - 2 * HOUR)
    // A coverage that does not hold `from` says nothing about it.
    expect(passStart([[FROM + HOUR, TO]], scope, 2 * HOUR)).toBe(FROM)
  })

  it('plans a pass that starts at a whole second, done at once when nothing is left', () => {
    expect(newPass(scope, FROM + 1).pager.windowStart).toBe(FROM + 1000)
    expect(newPass({ from: FROM, to: FROM + 500 }, FROM + 1).pager.done).toBe(true)
  })

  it('plans newest first by default: one window ending at the range end, read down to a start at a whole second', async () => {
    const pass = newPass({ from: FROM, to: TO - 1 }, FROM + 1, 'newest')
    expect(pass.pager).toMatchObject({ order: 'newest', windowStart: FROM + 1000, windowEnd: TO, done: false })
    expect(newPass(scope, FROM).pager.order).toBeUndefined()
    const planned = await planRun(cache.sync, scope, 'full', 48 * HOUR)
    expect(planned.checkpoint.pager.order).toBe('newest')
    // A stored pass keeps its own order: switching mid-pass would lose the proof of what is stored.
    const oldest = { ...newPass(scope, FROM, 'oldest'), pager: { ...newPass(scope, FROM, 'oldest').pager, skip: 500 } }
    cache.sync.setCheckpoint(planned.key, oldest)
    expect((await planRun(cache.sync, scope, 'full', 48 * HOUR, 'newest')).checkpoint).toEqual(oldest)
  })

  it('continues the stored checkpoint of the same range, and stores a new plan otherwise', async () => {
    const first = await planRun(cache.sync, scope, 'full', 48 * HOUR)
    expect(first.pageSize).toBe(500)
    expect(cache.sync.getCheckpoint(first.key)).toEqual(first.checkpoint)
    const moved = { ...first.checkpoint, pager: { ...first.checkpoint.pager, skip: 1500 } }
    cache.sync.setCheckpoint(first.key, moved)
    expect((await planRun(cache.sync, scope, 'full', 48 * HOUR)).checkpoint).toEqual(moved)
    const other = await planRun(cache.sync, { ...scope, to: TO - HOUR }, 'full', 48 * HOUR)
    expect(other.checkpoint.pager.skip).toBe(0)
    expect((await planRun(cache.sync, { ...scope, includeAnalysis: true }, 'full', 48 * HOUR)).pageSize).toBe(100)
  })

  it('turns a finished pass that was killed before its coverage was recorded into coverage', async () => {
    const plan = await planRun(cache.sync, scope, 'full', 48 * HOUR)
    cache.sync.setCheckpoint(plan.key, { ...plan.checkpoint, pager: { ...plan.checkpoint.pager, done: true } })
    await planRun(cache.sync, { ...scope, from: FROM + HOUR }, 'incremental', 2 * HOUR)
    expect(cache.coverage(plan.key)).toEqual([[FROM, TO]])
  })

  it('rejects an invalid scope as InvalidInput naming the field', async () => {
    await expect(planRun(cache.sync, { from: TO, to: FROM }, 'full', 0)).rejects.toThrow(expect.objectContaining({ code: 'InvalidInput' }))
  })
})

/** A source whose answers the test hands out by hand. */
class ManualSource implements SyncSource {
  readonly pending: Array<{ params: SyncPageRequest; signal?: AbortSignal; resolve: (p: SyncPage) => void; reject: (e: unknown) => void }> =
    []
  getCalls(params: SyncPageRequest, signal?: AbortSignal): Promise<SyncPage> {
    return new Promise((resolve, reject) => {
      this.pending.push({ params, signal, resolve, reject })
      signal?.addEventListener('abort', () => reject(new CallsightError('Cancelled', 'aborted')), { once: true })
    })
  }
}

const fullPage = (n: number, at: number): SyncPage => {
  const records = Array.from({ length: n }, (_, i) => record(`r-${at}-${i}`, at + i * 1000))
  return { records, totalCount: null, malformed: [], returned: n }
}

describe('fetch pipeline', () => {
  const pass = { rangeTo: TO, filters, pageSize: 500 }

  it('keeps three pages of one window in flight, and never asks past the 10,000 window', () => {
    const source = new ManualSource()
    const pipeline = new FetchPipeline(source, pass)
    pipeline.fill(initialPager(FROM))
    expect(pipeline.inFlight.map((p) => [p.from, p.skip, p.take])).toEqual([
      [FROM, 0, 500],
      [FROM, 500, 500],
      [FROM, 1000, 500]
    ])
    const late: PagerState = { ...initialPager(FROM), skip: SERVICE_WINDOW - 700 }
    const near = new FetchPipeline(new ManualSource(), pass)
    near.fill(late)
    expect(near.inFlight.map((p) => [p.skip, p.take])).toEqual([
      [SERVICE_WINDOW - 700, 500],
      [SERVICE_WINDOW - 200, 200]
    ])
  })

  it('newest first, asks for pages of one window descending, each ending at the window end', () => {
    const pipeline = new FetchPipeline(new ManualSource(), pass)
    pipeline.fill({ ...initialPager(FROM, { rangeTo: TO }), windowEnd: TO - HOUR, skip: 300 })
    expect(pipeline.inFlight.map((p) => [p.from, p.to, p.skip, p.take, p.ascending])).toEqual([
      [FROM, TO - HOUR, 300, 500, false],
      [FROM, TO - HOUR, 800, 500, false],
      [FROM, TO - HOUR, 1300, 500, false]
    ])
  })

  it('keeps the guessed pages when the state asks for them, and aborts them when it does not', async () => {
    const source = new ManualSource()
    const pipeline = new FetchPipeline(source, pass)
    const pager = initialPager(FROM)
    pipeline.fill(pager)
    source.pending[0]!.resolve(fullPage(500, FROM))
    const { page } = await pipeline.next()
    expect(page.returned).toBe(500)
    pipeline.follow({ ...pager, skip: 500 })
    expect(source.pending.filter((p) => p.signal?.aborted)).toHaveLength(0)
    expect(pipeline.inFlight.map((p) => p.skip)).toEqual([500, 1000, 1500])

    // A window move: the guesses are useless.
    pipeline.follow({ ...pager, windowStart: FROM + HOUR, skip: 3 })
    expect(source.pending.filter((p) => p.signal?.aborted).map((p) => p.params.skip)).toEqual([500, 1000, 1500])
    expect(pipeline.inFlight.map((p) => [p.from, p.skip])).toEqual([
      [FROM + HOUR, 3],
      [FROM + HOUR, 503],
      [FROM + HOUR, 1003]
    ])
    // Done: nothing more in flight.
    pipeline.follow({ ...pager, done: true })
    expect(pipeline.size).toBe(0)
  })

  it('follows the run signal: a cancel aborts what is in flight and launches nothing more', async () => {
    const source = new ManualSource()
    const ac = new AbortController()
    const pipeline = new FetchPipeline(source, pass, ac.signal)
    pipeline.fill(initialPager(FROM))
    ac.abort()
    expect(pipeline.cancelled).toBe(true)
    expect(source.pending.every((p) => p.signal?.aborted)).toBe(true)
    await pipeline.drain()
    pipeline.fill(initialPager(FROM))
    expect(pipeline.size).toBe(0)
    pipeline.dispose()
  })

  it('hands pages over in launch order whatever order they arrive in, and says when the head is in', async () => {
    const source = new ManualSource()
    const pipeline = new FetchPipeline(source, pass)
    pipeline.fill(initialPager(FROM))
    source.pending[1]!.resolve(fullPage(500, FROM + HOUR))
    await Promise.resolve()
    expect(pipeline.headSettled).toBe(false)
    source.pending[0]!.resolve(fullPage(500, FROM))
    await new Promise((r) => setTimeout(r, 0))
    expect(pipeline.headSettled).toBe(true)
    expect((await pipeline.next()).params.skip).toBe(0)
    expect((await pipeline.next()).params.skip).toBe(500)
  })
})

describe('fold', () => {
  it('keeps calls from the requested start up to, not including, the end', () => {
    const cp = newPass(scope, FROM)
    const page: SyncPage = {
      records: [record('a', FROM), record('b', TO - 1000), record('c', TO)],
      totalCount: null,
      malformed: [],
      returned: 3
    }
    const folded = foldPage(cp, { ...cp.pager, from: FROM, to: TO, skip: 0, take: 500 } as unknown as SyncPageRequest, page)
    expect(folded.records.map((r) => r.callId)).toEqual(['a', 'b'])
    expect(folded.checkpoint.pager.done).toBe(true)
    expect(folded.checkpoint.requestFrom).toBe(FROM)
  })
})

describe('store group', () => {
  const page = (n: number): WritePageInput => ({ scopeKey: 'k', records: [], includeAnalysis: false, checkpoint: { n } })

  it('holds pages until flushed or full, and writes each group in one call, in order', async () => {
    const groups: number[][] = []
    const group = new StoreGroup({ writePages: (inputs) => (groups.push(inputs.map((i) => (i.checkpoint as { n: number }).n)), []) }, 3)
    await group.add(page(1))
    await group.add(page(2))
    expect(groups).toEqual([])
    await group.flush()
    await group.add(page(3))
    await group.add(page(4))
    await group.add(page(5))
    await group.flush()
    expect(groups).toEqual([
      [1, 2],
      [3, 4, 5]
    ])
    expect(group.size).toBe(0)
  })

  it('after a failure, stores what arrived; when that fails too, gives the pages up and logs it', async () => {
    const logger = new MemoryLogger()
    const group = new StoreGroup({
      writePages: () => {
        throw new Error('disk full')
      }
    })
    await group.add(page(1))
    await group.salvage(logger)
    expect(group.size).toBe(0)
    expect(logger.lines.map((l) => l.level)).toEqual(['error'])
  })
})

describe('report phase', () => {
  const options = (onProgress: (p: SyncProgress) => void, logger: Logger = silentLogger) => {
    let now = 0
    const cp = newPass(scope, FROM)
    cp.pager.dense = [{ at: FROM + HOUR, windowTotal: 10_400 }]
    return {
      clock: { tick: (ms: number) => (now += ms) },
      cp,
      opts: {
        runId: 'r1',
        scope,
        checkpoint: cp,
        now: () => now,
        rateLimit: { requests: 60, perSeconds: 60 },
        pageSize: 500,
        logger,
        onProgress
      }
    }
  }

  it('repeats a resumed pass’s dense findings, reports waits, and clears the wait when a page arrives', () => {
    const seen: SyncProgress[] = []
    const { opts, cp } = options((p) => seen.push(p))
    const report = new RunReport(opts)
    expect(report.snapshot().warnings[0]).toMatch(/10,000/)
    report.waiting(2500)
    expect(seen.at(-1)).toMatchObject({ phase: 'waiting', waitSeconds: 2.5 })
    report.fetching(cp)
    expect(seen.at(-1)).toMatchObject({ phase: 'fetching', waitSeconds: null, runId: 'r1' })
  })

  it('estimates the ETA from the envelope at the tenant’s pace, and ends at the range end with none left', () => {
    const { opts, cp, clock } = options(() => undefined)
    const report = new RunReport(opts)
    const page: SyncPage = { ...fullPage(500, FROM), totalCount: 5_500 }
    const folded = foldPage(cp, { from: FROM, to: TO, skip: 0, take: 500 } as SyncPageRequest, page)
    clock.tick(1000)
    report.pageApplied(page, folded.outcome, cp, folded.records.length)
    report.fetching(folded.checkpoint)
    // 5,000 left in the window = 10 pages at one request a second.
    expect(report.snapshot()).toMatchObject({ stored: 500, requests: 1, etaSeconds: 10 })
    const final = report.final('done', { ...folded.checkpoint, pager: { ...folded.checkpoint.pager, done: true } })
    expect(final).toMatchObject({ phase: 'done', position: TO, etaSeconds: 0 })
  })

  it('logs a listener that throws and goes on', () => {
    const logger = new MemoryLogger()
    const { opts, cp } = options(() => {
      throw new Error('listener bug')
    }, logger)
    const report = new RunReport(opts)
    report.fetching(cp)
    expect(report.final('cancelled', cp, { code: 'Cancelled', message: 'x' }).phase).toBe('cancelled')
    expect(logger.lines.map((l) => l.level)).toEqual(['warn', 'warn'])
  })
})
