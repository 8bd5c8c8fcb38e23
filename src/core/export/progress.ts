export interface ExportProgressEvent {
  written: number
  total: number
}

const MIN_INTERVAL_MS = 100

/**
 * At most ten reports a second, plus the first and the last, so a UI never floods. While
 * the file is being written a report never reaches its total: the last records read are
 * not yet the file (a workbook still zips, the file is flushed and renamed), and a bar at
 * 100 % with nothing to show for it reads as a hang. `complete` reports the total, once the
 * file is whole.
 */
export class ProgressThrottle {
  private last = -Infinity

  constructor(
    private readonly total: number,
    private readonly report: ((p: ExportProgressEvent) => void) | undefined
  ) {}

  tick(written: number, force = false): void {
    if (this.report === undefined) return
    const now = performance.now()
    if (!force && now - this.last < MIN_INTERVAL_MS) return
    this.last = now
    // The source's total is a count taken before streaming: more records than it keep the
    // report short of complete too.
    this.report({ written, total: Math.max(this.total, written + 1) })
  }

  /** The file is complete: its records, of as many. */
  complete(written: number): void {
    this.last = performance.now()
    this.report?.({ written, total: written })
  }
}
