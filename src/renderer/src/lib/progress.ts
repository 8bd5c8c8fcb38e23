import type { SyncProgress } from '../../../shared/domain'
import { syncShare } from '../../../shared/sync-share'
import type { TeamPullProgress } from '../../../shared/team'

type PullShape = Pick<TeamPullProgress, 'phase' | 'calls' | 'totalCalls' | 'callsPerSecond'>

/** How far a sync run is, 0–100: by position through the range, or 100 once finished. */
export function syncPercent(p: Pick<SyncProgress, 'phase' | 'position' | 'from' | 'to' | 'order'>): number {
  if (p.phase === 'done') return 100
  return Math.round(syncShare(p) * 1000) / 10
}

/**
 * Export progress, 0–100, when the total is known. Rounded down: 99,999 of 100,000 is not
 * done, and the export reports its total only once the file is complete.
 */
export function exportPercent(written: number, total: number): number {
  if (total <= 0) return 0
  return Math.floor(Math.min(1, written / total) * 1000) / 10
}

/** How far a team pull is, 0–100: calls applied of the changed calls counted when it began. */
export function pullPercent(p: PullShape): number {
  if (p.totalCalls <= 0) return p.phase === 'done' ? 100 : 0
  return Math.min(100, Math.round((p.calls / p.totalCalls) * 100))
}

/** Seconds a team pull still needs at its rate so far; null when it is not pulling or the rate is not known yet. */
export function pullSecondsLeft(p: PullShape): number | null {
  if (p.phase !== 'pulling' || p.calls === 0 || !(p.callsPerSecond > 0) || p.totalCalls <= p.calls) return null
  return (p.totalCalls - p.calls) / p.callsPerSecond
}
