import { describe, expect, it } from 'vitest'
import { progressLine } from '../../../src/cli/output'
import type { SyncProgress } from '../../../src/shared/domain'

const base: SyncProgress = {
  runId: 'r',
  phase: 'fetching',
  stored: 1500,
  requests: 3,
  windowsDone: 0,
  position: 2_500,
  from: 0,
  to: 10_000,
  requestsPerMinute: 120,
  recordsPerSecond: 1000,
  etaSeconds: 95,
  waitSeconds: null,
  warnings: []
}

describe('the sync progress line', () => {
  it('shows the share of the range, counts, rates and the ETA', () => {
    const line = progressLine(base, 20)
    expect(line).toContain('[#####...............]')
    expect(line).toContain(' 25%')
    expect(line).toContain('1500 stored')
    expect(line).toContain('120 req/min')
    expect(line).toContain('ETA 1m35s')
  })

  it('newest first, counts the share back from the end of the range', () => {
    const line = progressLine({ ...base, order: 'newest', position: 7_500 }, 20)
    expect(line).toContain('[#####...............]')
    expect(line).toContain(' 25%')
  })

  it('says how long it waits for the rate limit', () => {
    expect(progressLine({ ...base, phase: 'waiting', waitSeconds: 12.4 })).toContain('waiting 12s')
    expect(progressLine({ ...base, etaSeconds: null })).toContain('ETA --')
  })

  it('shows the pace against the configured limit, and when the service slowed us down', () => {
    expect(progressLine({ ...base, pace: { perMinute: 60, limitPerMinute: 60, throttled: false } })).toContain('(pace 60 of 60/min)')
    const slowed = progressLine({ ...base, pace: { perMinute: 42.4, limitPerMinute: 60, throttled: true } })
    expect(slowed).toContain('(pace 42 of 60/min, slowed by the service)')
    expect(progressLine(base)).not.toContain('pace')
  })
})
