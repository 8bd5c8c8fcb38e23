import { describe, expect, it } from 'vitest'
import { planningProgress, type LastRunScope } from '../../../src/shared/domain'
import { continueScope, formFromLast, resumeOffer } from '../../../src/renderer/src/lib/syncResume'

const NOW = Date.parse('2026-03-10T12:00:00Z')
const last: LastRunScope = {
  from: Date.parse('2025-12-11T00:00:00Z'),
  to: NOW - 3_600_000,
  filters: { callTypes: ['Satış'], direction: 1, results: 'all', hasNewRequest: null, includeAnalysis: true }
}

describe('the sync form remembers the latest run', () => {
  it('restores its start and filters, ending now when it ended recently', () => {
    expect(formFromLast(last, NOW)).toEqual({
      from: last.from,
      to: NOW,
      callTypes: ['Satış'],
      direction: 1,
      results: 'all',
      includeAnalysis: true
    })
  })

  it('keeps a range of past days as picked', () => {
    const past = { ...last, to: NOW - 10 * 86_400_000 }
    expect(formFromLast(past, NOW).to).toBe(past.to)
  })

  it('continues with the run’s own start and end, so the stored pass matches', () => {
    expect(continueScope(last)).toMatchObject({ from: last.from, to: last.to, results: 'all', callTypes: ['Satış'] })
  })
})

describe('Continue after a stopped run', () => {
  const cancelled = { ...planningProgress('r1', last.from, last.to), phase: 'cancelled' as const }

  it('offers what is left, in calls, requests and minutes', () => {
    const offer = resumeOffer({ ...cancelled, remaining: { calls: 9_100, requests: 10 }, etaSeconds: 130 }, last, false)
    expect(offer).toEqual({ left: { calls: 9_100, requests: 10, minutes: 3 } })
  })

  it('offers to continue without numbers when nothing was estimated', () => {
    expect(resumeOffer(cancelled, last, false)).toEqual({ left: null })
  })

  it('offers nothing while a run goes on, after a finished run, or for another start', () => {
    expect(resumeOffer(cancelled, last, true)).toBeNull()
    expect(resumeOffer({ ...cancelled, phase: 'done' }, last, false)).toBeNull()
    expect(resumeOffer({ ...cancelled, from: last.from + 1 }, last, false)).toBeNull()
    expect(resumeOffer(cancelled, null, false)).toBeNull()
  })
})
