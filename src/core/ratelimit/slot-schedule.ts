/**
 * When the tenant's next request may go: one every `interval` (a GCRA / leaky-bucket
 * schedule), with a small burst after an idle spell.
 *
 * `next` is the slot of the next request. A request at or after it goes at once and opens a
 * group; the group may take as many extra requests at once as there were idle slots before it
 * (at most burst − 1), and each extra one pushes `next` a further interval out, so the burst
 * is paid back before the following request. Sent that way, no span of the timeline longer
 * than burst × interval holds more than span / interval requests: safe against a fixed or
 * sliding window of the mean rate (of any length from burst × interval up) and against a
 * token bucket of that rate holding `burst` or more. A request a little late keeps its slot's
 * grid (`lateTolerance`, which the limiter keeps within what its margin covers).
 */
export class SlotSchedule {
  private next = Number.NEGATIVE_INFINITY
  private burstLeft = 0

  /** Milliseconds from `now` until a request may go. */
  delay(now: number): number {
    return this.burstLeft > 0 ? 0 : Math.max(0, this.next - now)
  }

  /** A request goes at `now` (call only when delay(now) is 0). */
  take(now: number, interval: number, burst: number, lateTolerance = 0): void {
    if (now >= this.next) {
      const late = now - this.next
      const idle = this.next === Number.NEGATIVE_INFINITY ? burst : Math.floor(late / interval)
      this.burstLeft = Math.max(0, Math.min(burst - 1, idle))
      // A request a little late for its slot (a timer firing late on a busy machine) keeps the
      // grid, or every such delay would be lost for good; a real gap starts a new grid.
      this.next = late <= Math.min(interval / 4, lateTolerance) ? this.next + interval : now + interval
    } else {
      this.burstLeft--
      this.next += interval
    }
  }

  /** Nothing goes before `at`, and no burst right after it. */
  holdUntil(at: number): void {
    this.next = Math.max(this.next, at)
    this.burstLeft = 0
  }

  /** The service says its window is nearly spent: no more requests ahead of the schedule. */
  dropBurst(): void {
    this.burstLeft = 0
  }
}
