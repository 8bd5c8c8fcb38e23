import type { SyncProgress } from '../../../shared/domain'

/** How far a sync run is, 0–100: by position through the range, or 100 once finished. */
export function syncPercent(p: Pick<SyncProgress, 'phase' | 'position' | 'from' | 'to'>): number {
  if (p.phase === 'done') return 100
  if (p.position === null || p.to <= p.from) return 0
  const fraction = Math.abs(p.position - p.from) / (p.to - p.from)
  return Math.round(Math.min(1, Math.max(0, fraction)) * 1000) / 10
}

/** Export progress, 0–100, when the total is known. */
export function exportPercent(written: number, total: number): number {
  if (total <= 0) return 0
  return Math.round(Math.min(1, written / total) * 1000) / 10
}
