import type { LastRunScope, SyncProgress, SyncScopeInput } from '../../../shared/domain'

const DAY = 86_400_000

export interface SyncForm {
  from: number | null
  to: number | null
  callTypes: string[]
  direction: number | null
  results: 'answered' | 'all'
  includeAnalysis: boolean
}

/**
 * The sync form as the account's latest run left it. A range that ended recently was "up to
 * now" and ends now again; an older end was a range of past days and stays as picked.
 */
export function formFromLast(last: LastRunScope, now: number): SyncForm {
  return {
    from: last.from,
    to: last.to >= now - DAY ? Math.max(last.to, now) : last.to,
    callTypes: [...last.filters.callTypes],
    direction: last.filters.direction,
    results: last.filters.results === 'answered' ? 'answered' : 'all',
    includeAnalysis: last.filters.includeAnalysis
  }
}

/**
 * The scope that continues the latest run: its own start and end, so the engine finds the
 * stored pass and fetches only what it had left (the calls after that end are the next run's).
 */
export function continueScope(last: LastRunScope): SyncScopeInput {
  const f = last.filters
  return {
    from: last.from,
    to: last.to,
    callTypes: [...f.callTypes],
    direction: f.direction,
    results: f.results,
    hasNewRequest: f.hasNewRequest,
    includeAnalysis: f.includeAnalysis
  }
}

export interface ResumeOffer {
  /** What is left, when the run could estimate it. */
  left: { calls: number; requests: number; minutes: number } | null
}

/** A run that stopped before its end (cancelled or failed) and is the latest run offers to continue. */
export function resumeOffer(p: SyncProgress | null, last: LastRunScope | null, running: boolean): ResumeOffer | null {
  if (running || p === null || last === null) return null
  if (p.phase !== 'cancelled' && p.phase !== 'failed') return null
  if (p.from !== last.from) return null
  if (p.remaining === undefined || p.remaining.calls === 0) return { left: null }
  const minutes = Math.max(1, Math.ceil((p.etaSeconds ?? 0) / 60))
  return { left: { ...p.remaining, minutes } }
}
