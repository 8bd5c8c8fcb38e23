/** Tuning of the pace after a 429; exported for the tests and the bench's notes. */
export const AIMD = {
  /** A 429 multiplies the pace by this, or less when its Retry-After is long (see throttled)... */
  decrease: 0.7,
  /**
   * ... and by this when it comes within a window of the previous one: the pace that came
   * back from the last pause is still too much (four workstations all starting at the full
   * limit need two of these, not four of the former).
   */
  steepDecrease: 0.5,
  /**
   * A lone 429 with a short Retry-After (a tenth of the window or less) multiplies it by this:
   * a service window finer than ours, or a request that travelled slower than the next one.
   */
  gentleDecrease: 0.9,
  /** The climb's starting speed after a lone 429, in pace per window. */
  fastGrowth: 0.6,
  /** The slowest the climb starts when 429s keep coming. */
  slowGrowth: 0.01,
  /** 429s closer together than this many windows (per workstation) halve the climb's speed. */
  crowdedWindows: 4,
  /** ... and divide it by this. */
  crowdedDivisor: 2,
  /**
   * The climb is in part proportional to the pace (so four workstations together climb no
   * faster than one) and in part the same for everyone (this much per unit of growth), which
   * is what brings unequal shares together.
   */
  lift: 0.3,
  /** The pace never drops below this share of the configured limit. */
  minPace: 0.1
} as const

/**
 * The share of the configured limit the tenant's requests go at (1 = the configured rate).
 *
 * A 429 means the tenant's budget is spent by someone else too — another workstation, the
 * CLI on a server — or that the service counts in a window our schedule does not fit. The
 * pace then drops by a factor (multiplicative decrease) and climbs back (additive increase),
 * at a speed that doubles every window without a 429: a lone client is back at the
 * configured rate about half a window after the pause ends.
 *
 * Several workstations sharing the budget make each other's 429s: while they come closer
 * together than `crowdedWindows`, each one halves the speed its next climb starts at; when
 * they come further apart it doubles again, so the tenant's 429s stay a small fraction of its
 * requests. The faster workstation meets more of the 429s and loses more in each, and the
 * `lift` part of the climb is the same for all: the shares converge on equal ones
 * (test/unit/core-client/pacing.test.ts simulates it; bench `pacing` measures it).
 */
export class PaceControl {
  /** The pace right after the last 429 (1 when there was none). */
  private floorPace = 1
  /** When the climb starts: the end of the Retry-After pause. */
  private climbFrom = 0
  private startGrowth: number = AIMD.fastGrowth
  private lastLossAt = Number.NEGATIVE_INFINITY

  constructor(private readonly windowMs: () => number) {}

  at(now: number): number {
    if (this.floorPace >= 1) return 1
    const t = (now - this.climbFrom) / this.windowMs()
    if (t <= 0) return this.floorPace
    // floor + (floor + lift) · ∫₀ᵗ g·2^τ dτ
    const p = this.floorPace + ((this.floorPace + AIMD.lift) * this.startGrowth * (2 ** t - 1)) / Math.LN2
    if (p >= 1) {
      this.floorPace = 1
      return 1
    }
    return p
  }

  /**
   * A 429 at `now`; the climb starts at `resumeAt`. A window that is full and stays full
   * for `retryAfterMs` was filled in the rest of it: a Retry-After of two thirds of the window
   * says the tenant sends three times what it allows, and the pace drops to a third at once
   * instead of in four 429s (when every workstation starts at the full limit, say).
   */
  throttled(now: number, resumeAt: number, retryAfterMs: number): void {
    const p = this.at(now)
    const sinceLast = (now - this.lastLossAt) / this.windowMs()
    const crowded = sinceLast < AIMD.crowdedWindows || retryAfterMs > this.windowMs() / 4
    this.startGrowth = crowded
      ? Math.max(AIMD.slowGrowth, this.startGrowth / AIMD.crowdedDivisor)
      : Math.min(AIMD.fastGrowth, this.startGrowth * 2)
    this.lastLossAt = now
    const overload = Math.max(0, 1 - retryAfterMs / this.windowMs())
    const factor =
      sinceLast < 1 ? AIMD.steepDecrease : !crowded && retryAfterMs <= this.windowMs() / 10 ? AIMD.gentleDecrease : AIMD.decrease
    this.floorPace = Math.max(AIMD.minPace, p * Math.min(factor, overload))
    this.climbFrom = resumeAt
  }
}
