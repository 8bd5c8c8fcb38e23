import type { SyncProgress } from './domain'

/**
 * How much of the range a run has passed, 0–1, whichever end it started from: oldest first
 * moves `position` forward from `from`, newest first back from `to`. The app's bar and the
 * CLI's line both read it, so they agree.
 */
export function syncShare(p: Pick<SyncProgress, 'position' | 'from' | 'to' | 'order'>): number {
  if (p.position === null || p.to <= p.from) return 0
  const passed = p.order === 'newest' ? p.to - p.position : p.position - p.from
  return Math.min(1, Math.max(0, passed / (p.to - p.from)))
}
