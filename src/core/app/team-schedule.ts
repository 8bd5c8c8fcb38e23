import type { AppErrorInfo } from '../../shared/errors'
import type { TeamPullProgress, TeamSchedule } from '../../shared/team'
import { isAbortError } from '../errors'
import type { Clock } from '../platform'

const MINUTE_MS = 60_000
/** The longest wait while the team cache cannot be reached (unless the interval is longer). */
const MAX_BACKOFF_MS = 60 * MINUTE_MS
/** How often the loop looks again at the settings and the active account while it waits. */
const LOOK_AGAIN_MS = MINUTE_MS

/** Failures that say PostgreSQL could not be reached (as opposed to a refusal it answered). */
const UNREACHABLE = new Set(['Network', 'Timeout'])

/** What the schedule needs of the app (handlers/team.ts gives the real ones). */
export interface TeamScheduleDeps {
  clock: Clock
  /** Minutes between pulls from the settings; 0: off. */
  everyMinutes(): number
  /** The active account's id when it pulls from a team cache, else null. */
  teamAccount(): string | null
  /** When the active account's cache last took a pull (its team source), for "as of" after a restart. */
  pulledAt(): number | null
  /**
   * Starts a pull and resolves with its last progress; null when a pull is already running
   * (that one's end is reported through `pullEnded` like any other).
   */
  pull(): Promise<TeamPullProgress | null>
  /** The schedule changed: the renderer shows it. */
  onChange(s: TeamSchedule): void
}

/**
 * The app's own pulls from the team cache: every N minutes (Settings, default 5, 0 = off)
 * while the active account pulls from a team cache, never two at once (a pull asked for by
 * the user counts as the scheduled one), waiting twice as long after each pull that could not
 * reach PostgreSQL (up to an hour, or the interval when that is longer), and back to the
 * interval after the next success. The loop looks again at the settings and the account once
 * a minute, so a change of either takes effect without being told.
 */
export class TeamPullSchedule {
  private readonly stop = new AbortController()
  private account: string | null = null
  /** When the schedule first saw the active account: a cache never pulled waits an interval from then. */
  private since = 0
  private lastSuccessAt: number | null = null
  private lastAttemptAt: number | null = null
  private failures = 0
  private unreachable = 0
  private lastError: AppErrorInfo | null = null
  private published = ''
  private loop: Promise<void> | null = null

  constructor(private readonly deps: TeamScheduleDeps) {}

  /** Starts the loop (once). */
  start(): void {
    this.loop ??= this.run().catch(() => undefined)
  }

  /** What the schedule stands at now. */
  state(): TeamSchedule {
    this.follow()
    return {
      everyMinutes: this.deps.everyMinutes(),
      lastSuccessAt: this.lastSuccessAt,
      nextAt: this.nextAt(),
      failures: this.failures,
      lastError: this.lastError
    }
  }

  /** Something the schedule follows changed (an account connected): take it in and tell the renderer now. */
  changed(): void {
    this.publish()
  }

  /** A pull ended (scheduled or asked for): the next one is counted from it. */
  pullEnded(p: TeamPullProgress): void {
    this.follow()
    const now = this.deps.clock.now()
    this.lastAttemptAt = now
    if (p.phase === 'done') {
      this.lastSuccessAt = now
      this.failures = 0
      this.unreachable = 0
      this.lastError = null
    } else if (p.phase === 'failed') {
      this.failures++
      this.lastError = p.error ?? null
      this.unreachable = p.error && UNREACHABLE.has(p.error.code) ? this.unreachable + 1 : 0
    }
    this.publish()
  }

  async dispose(): Promise<void> {
    this.stop.abort()
    await this.loop
  }

  /** A new active account starts from its own cache's last pull. */
  private follow(): void {
    const account = this.deps.teamAccount()
    if (account === this.account) return
    this.account = account
    this.since = this.deps.clock.now()
    this.lastSuccessAt = account ? this.deps.pulledAt() : null
    this.lastAttemptAt = null
    this.failures = 0
    this.unreachable = 0
    this.lastError = null
  }

  private nextAt(): number | null {
    const every = this.deps.everyMinutes() * MINUTE_MS
    if (every === 0 || this.account === null) return null
    // Never pulled: the user pulls when connecting; the schedule takes over an interval later.
    const from = Math.max(
      this.lastSuccessAt ?? -Infinity,
      this.lastAttemptAt ?? -Infinity,
      this.lastSuccessAt === null ? this.since : -Infinity
    )
    const wait = this.unreachable > 0 ? Math.min(every * 2 ** this.unreachable, Math.max(every, MAX_BACKOFF_MS)) : every
    return from + wait
  }

  private publish(): void {
    const s = this.state()
    const key = JSON.stringify(s)
    if (key === this.published) return
    this.published = key
    this.deps.onChange(s)
  }

  // Runs for the app's lifetime: every turn either sleeps (at most a minute) or runs one pull,
  // and dispose() ends it.
  private async run(): Promise<void> {
    const { clock } = this.deps
    while (!this.stop.signal.aborted) {
      this.publish()
      const next = this.nextAt()
      const now = clock.now()
      if (next === null || next > now) {
        try {
          await clock.sleep(next === null ? LOOK_AGAIN_MS : Math.min(next - now, LOOK_AGAIN_MS), this.stop.signal)
        } catch (e) {
          if (isAbortError(e) || this.stop.signal.aborted) return
          throw e
        }
        continue
      }
      // deps.pull reports its end through pullEnded, failures included.
      const ended = await this.deps.pull().catch(() => null)
      // A pull already running: its end moves the schedule; look again after a short wait.
      const due = this.nextAt()
      if (ended === null && due !== null && due <= clock.now()) {
        try {
          await clock.sleep(LOOK_AGAIN_MS / 6, this.stop.signal)
        } catch {
          return
        }
      }
    }
  }
}
