/** Tuning of the pace after a 429; exported for the tests and the bench's notes. */
export const AIMD = {
  /** A 429 multiplies the pace by this, or less when its Retry-After is long (see throttled). */
  decrease: 0.85,
  /**
   * The climb grows the pace by this share of itself per window (so four workstations
   * together climb no faster than one, and the tenant's 429s stay few however many share it).
   * Gentle: each 429 costs a pause and a step back, so a slower climb that meets fewer of them
   * keeps more of the ceiling (two workstations on a 2 s window lost a fifth of it at 0.04)...
   */
  growth: 0.01,
  /** ... plus this much for everyone, which is what brings unequal shares together ... */
  lift: 0.007,
  /**
   * ... and after this many windows without a 429 the climb speeds up, doubling every
   * window: the others have gone, and a lone workstation is back at the configured rate
   * within a few more windows.
   */
  quietWindows: 6,
  /** ... or once the pace is this much above the one the last 429 came at. */
  roomAbove: 1.15,
  /** The share of the overload a long Retry-After shows that the pace takes off (a little more than all). */
  overloadSafety: 0.85,
  /**
   * The first collision, at the full pace before a whole window of ours was sent (every
   * workstation starting at once): the overload it shows is rounded to a power of two
   * (`startupShift` above the nearest, so 2.3 reads as 4) and the pace goes to this share of
   * its inverse. Every workstation in that collision then takes the same cut: a Retry-After
   * in whole seconds moves the overload a 12 s window shows by a quarter (8 s reads 2.9, 9 s
   * 3.8), and unequal cuts there stayed unequal to the end. See startupPace.
   */
  startupSafety: 0.95,
  startupShift: 0.3,
  /**
   * A 429 with a Retry-After this short (ms; the least a whole-second header says) after an
   * earlier retreat is the tenant's ordinary brush with its ceiling: the pace goes back to
   * a little under the one the last 429 set (`takeBack` of it) rather than down by a
   * factor, within `takeBackRange` of the pace now. See throttled.
   */
  steadyRetryAfterMs: 1_000,
  takeBack: 0.97,
  takeBackRange: [0.75, 0.95] as const,
  /** The pace never drops below this share of the configured limit. */
  minPace: 0.1,
  /** After a 429 of others' making, the climb starts up to this many windows late (random). */
  climbJitter: 0.5,
  /**
   * A 429 when our own requests filled this much of the last window or more (or, before we
   * have sent for a whole window, one with a short Retry-After, a tenth of the window or
   * less): nobody else is spending the tenant's budget, the service counts in a finer window
   * than ours (or requests bunch up on the way) and our margin is too thin for it...
   */
  selfShare: 0.8,
  /** ... so the pace's ceiling comes down by this factor (a wider margin, learnt) ... */
  ceilingDecrease: 0.96,
  /** ... and goes back up by this much per window without a 429 ... */
  ceilingGrowth: 0.01,
  /** ... never below this. */
  minCeiling: 0.7
} as const

/**
 * The share of the configured limit the tenant's requests go at (1 = the configured rate).
 *
 * A 429 means the tenant's budget is spent by someone else too — another workstation, the
 * CLI on a server — or that the service counts in a window our schedule does not fit. Which
 * one the limiter tells by its own count (`ownShare`): when our requests alone filled the
 * last window, nobody else is there, and only the pace's ceiling comes down a little (a
 * margin learnt for a finer window); otherwise the pace drops by a factor (multiplicative
 * decrease) and climbs back.
 *
 * The climb is mostly proportional to the pace: several workstations climbing together grow
 * the tenant's total as fast as one would, so the tenant sees about one 429 per couple of
 * windows however many share it. The small part that is the same for all (`lift`), and the
 * faster workstation meeting more of the 429s, bring the shares together. Each climb starts
 * a random part of a window late, or workstations that met the same full window would meet
 * the next one together. After `quietWindows` without a 429 the climb speeds up.
 * test/unit/core/ratelimit/pacing.test.ts simulates it; bench `pacing` measures it.
 */
export class PaceControl {
  /** The pace right after the last 429 (1 when there was none). */
  private floorPace = 1
  /**
   * Windows of climb after which it speeds up: `quietWindows`, or sooner when the pace gets
   * well past the one the last 429 came at (the tenant has room: someone has gone).
   */
  private quietAfter: number = AIMD.quietWindows
  /** When the climb starts: the end of the Retry-After pause (and a random part of a window). */
  private climbFrom = 0
  /** The highest pace, lowered by 429s of our own making and regrowing (see selfShare). */
  private ceilingPace = 1
  /** The next 429 at the floor is let go once (see throttled). */
  private spareCut = false
  private ceilingFrom = 0

  constructor(
    private readonly windowMs: () => number,
    private readonly random: () => number = Math.random
  ) {}

  /** The highest pace the climb goes to now. */
  ceiling(now: number): number {
    if (this.ceilingPace >= 1) return 1
    const c = this.ceilingPace + (AIMD.ceilingGrowth * Math.max(0, now - this.ceilingFrom)) / this.windowMs()
    if (c >= 1) this.ceilingPace = 1
    return Math.min(1, c)
  }

  at(now: number): number {
    const ceiling = this.ceiling(now)
    if (this.floorPace >= 1) return ceiling
    const t = (now - this.climbFrom) / this.windowMs()
    if (t <= 0) return Math.min(ceiling, this.floorPace)
    // Windows of climb, running faster once it has been quiet for a while.
    const q = this.quietAfter
    const e = t <= q ? t : q + (2 ** (t - q) - 1) / Math.LN2
    const p = this.slowClimb(e)
    if (p >= 1) {
      this.floorPace = 1
      return ceiling
    }
    return Math.min(ceiling, p)
  }

  /** Windows of the slow climb until it reaches `pace` (at most quietWindows). */
  private windowsTo(pace: number): number {
    let lo = 0
    let hi: number = AIMD.quietWindows
    if (this.slowClimb(hi) <= pace) return hi
    for (let i = 0; i < 30; i++) {
      const mid = (lo + hi) / 2
      if (this.slowClimb(mid) < pace) lo = mid
      else hi = mid
    }
    return hi
  }

  /** The pace after `e` windows of the climb before it speeds up. */
  private slowClimb(e: number): number {
    return this.floorPace * (1 + AIMD.growth) ** e + AIMD.lift * e
  }

  /** Below the ceiling after a 429 of others' making, still climbing back. */
  retreating(now: number): boolean {
    return this.floorPace < 1 && this.at(now) < this.ceiling(now)
  }

  /**
   * A 429 at `now`; the climb starts at `resumeAt`. `ownShare` is the share of the configured
   * limit our own requests took in the last window (null before a whole window was sent).
   *
   * A window that is full and stays full for `retryAfterMs` was filled in the rest of it: a
   * Retry-After of two thirds of the window says the tenant sends three times what it
   * allows, and the pace drops to a third at once instead of in four 429s (when every
   * workstation starts at the full limit, say).
   */
  throttled(now: number, resumeAt: number, retryAfterMs: number, ownShare: number | null = null, admitted: number | null = null): void {
    const p = this.at(now)
    const windowMs = this.windowMs()
    if (this.spareCut && this.floorPace < 1 && p <= this.floorPace * 1.02) {
      // Still at the pace the last 429 set, not climbed yet: the request retried after its
      // pause met the same full window (others took the slot that opened). A second cut
      // would single this workstation out; it waits again and climbs later. Once: a second
      // such 429 says the pace is still too much.
      this.spareCut = false
      this.climbFrom = resumeAt + this.random() * AIMD.climbJitter * windowMs
      return
    }
    const short = retryAfterMs <= windowMs / 10
    if (ownShare === null ? short : ownShare >= AIMD.selfShare) {
      // Our own requests alone filled the service's window: a lower ceiling, not a retreat.
      this.ceilingPace = Math.max(AIMD.minCeiling, Math.min(this.ceiling(now), p) * AIMD.ceilingDecrease)
      this.ceilingFrom = resumeAt
      return
    }
    if (this.floorPace < 1 && retryAfterMs <= AIMD.steadyRetryAfterMs) this.takeBack(p)
    else if (ownShare === null && p >= 1) this.floorPace = startupPace(retryAfterMs, windowMs)
    else {
      const overload = Math.max(0, 1 - retryAfterMs / windowMs) * AIMD.overloadSafety
      // Never above what the service let through lately: while 429s keep coming, the pace that
      // got through is the tenant's room for us, whatever we asked for.
      const cut = p * Math.min(AIMD.decrease, overload)
      this.floorPace = Math.max(AIMD.minPace, admitted === null ? cut : Math.min(cut, admitted * AIMD.decrease))
    }
    this.spareCut = true
    this.quietAfter = this.windowsTo(Math.min(p, this.floorPace / AIMD.decrease) * AIMD.roomAbove)
    // Workstations that met the same full window would otherwise climb in step and meet the
    // next one together: each waits a random part of a window before it climbs.
    this.climbFrom = resumeAt + this.random() * AIMD.climbJitter * windowMs
  }

  /**
   * Sharing the tenant, each 429 lands on one workstation, whichever sent into the full
   * window: a cut by a factor makes the one hit twice in a row pay twice (and finish last,
   * alone at a fraction of the limit), while one not hit for long keeps all it climbed. So
   * the pace goes back to just under where the last 429 left it: the climb since is given
   * back, whoever it falls on, and the tenant comes down by about what it rose since its
   * last 429. Within a range of the pace now (a 429 always slows us, never by much more
   * than a cut would). Not bounded by what got through lately: that bound took the most
   * from the workstation that had sent least (a slower process, a later start) and kept it
   * lowest to the end.
   */
  private takeBack(p: number): void {
    const [least, most] = AIMD.takeBackRange
    this.floorPace = Math.max(AIMD.minPace, Math.min(p * most, Math.max(p * least, this.floorPace * AIMD.takeBack)))
  }
}

/**
 * The pace after the first collision (see startupSafety): the overload the Retry-After shows,
 * `window / (window − Retry-After)`, read as a power of two — the same for Retry-Afters a
 * second apart around a common collision — and that share of the limit, a little less.
 */
export function startupPace(retryAfterMs: number, windowMs: number): number {
  const overload = windowMs / Math.max(1, windowMs - retryAfterMs)
  const k = Math.max(0, Math.round(Math.log2(overload) + AIMD.startupShift))
  return Math.max(AIMD.minPace, Math.min(AIMD.decrease, AIMD.startupSafety / 2 ** k))
}
