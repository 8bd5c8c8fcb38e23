import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache } from '../../../../src/core/cache'

/**
 * The sync screen's last run from the cache (sync-runs.ts): runs the app saw end keep their
 * progress; others (a CLI run, one stopped with its process) are shown from the row itself.
 */
let dir: string
let file: string
let now = Date.UTC(2026, 10, 1, 9)
const clock = { now: () => now, sleep: () => Promise.resolve() }
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-last-run-'))
  file = join(dir, 'c.db')
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe('the last ended sync run', () => {
  it('is built from the row when no progress was saved; a run stopped with its process reads as cancelled', () => {
    const from = Date.UTC(2026, 9, 1)
    const cache = openCache(file, { checkpointer: false, clock })
    expect(cache.sync.lastEndedRun()).toBeNull()
    const failed = cache.sync.startRun('k', { mode: 'full', from, to: from + 86_400_000 })
    now += 120_000
    cache.sync.finishRun(failed, 'failed', { stored: 600, requests: 12 }, { code: 'Network', message: 'The service did not answer.' })
    expect(cache.sync.lastEndedRun()).toMatchObject({
      runId: failed,
      phase: 'failed',
      stored: 600,
      requests: 12,
      from,
      to: from + 86_400_000,
      elapsedSeconds: 120,
      recordsPerSecond: 5,
      requestsPerMinute: 6,
      error: { code: 'Network', message: 'The service did not answer.' }
    })
    // Running: not an ended run, so the panel still shows the one before.
    now += 1_000
    const killed = cache.sync.startRun('k', { mode: 'incremental', from, to: from + 1 })
    expect(cache.sync.lastEndedRun()?.runId).toBe(failed)
    cache.close()

    now += 60_000
    const reopened = openCache(file, { checkpointer: false, clock })
    try {
      const last = reopened.sync.lastEndedRun()
      expect(last).toMatchObject({ runId: killed, phase: 'cancelled', stored: 0, elapsedSeconds: 60 })
      expect(last?.error).toBeUndefined()
    } finally {
      reopened.close()
    }
  })
})
