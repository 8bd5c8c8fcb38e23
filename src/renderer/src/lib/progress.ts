import type { SyncProgress } from '../../../shared/domain'
import { syncShare } from '../../../shared/sync-share'

/** How far a sync run is, 0–100: by position through the range, or 100 once finished. */
export function syncPercent(p: Pick<SyncProgress, 'phase' | 'position' | 'from' | 'to' | 'order'>): number {
  if (p.phase === 'done') return 100
  return Math.round(syncShare(p) * 1000) / 10
}

/** Export progress, 0–100, when the total is known. */
export function exportPercent(written: number, total: number): number {
  if (total <= 0) return 0
  return Math.round(Math.min(1, written / total) * 1000) / 10
}
