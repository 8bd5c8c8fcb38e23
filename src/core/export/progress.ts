export interface ExportProgressEvent {
  written: number
  total: number
}

const MIN_INTERVAL_MS = 100

/** At most ten reports a second, plus the first and the last, so a UI never floods. */
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
    // The source's total is a count taken before streaming; never report past it.
    this.report({ written, total: Math.max(this.total, written) })
  }
}
