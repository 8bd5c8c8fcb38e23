import type { Account, SessionState, Settings, SyncProgress } from '../../shared/domain'
import type { TeamPullProgress } from '../../shared/team'
import { CallsightError, toErrorInfo } from '../errors'
import { RateLimiterRegistry } from '../ratelimit'
import { WaitFeed } from '../sync'
import { AccountRuntime } from './account-runtime'
import type { SessionNotice } from '../session/session'
import { Connectivity } from './connectivity'
import { migrateSavedSearches } from './saved-searches'
import type { PlatformServices, TokenPersistence } from './host-ports'
import { TaskRegistry } from './tasks'

/**
 * What the handler modules share: the platform, the tenant limiters, the running tasks, and
 * the active account's runtime. One object, passed to each module, instead of variables
 * captured by one long closure; `runtime` and `rebuilding` are the only fields that change.
 */
export class AppState {
  // One sync runs at a time, so one feed carries the limiter's waits to its progress.
  readonly waits = new WaitFeed()
  readonly limiters: RateLimiterRegistry
  readonly syncs = new TaskRegistry<{ progress: SyncProgress | null }>()
  readonly exports = new TaskRegistry<{ file: string }>()
  /** Pulls from the team cache (handlers/team.ts). */
  readonly pulls = new TaskRegistry<{ progress: TeamPullProgress | null }>()
  readonly connectivity: Connectivity
  /** Loops the handler modules run for the app's lifetime, stopped by dispose (the team pull schedule). */
  readonly disposers: Array<() => Promise<void>> = []
  /**
   * Review work was saved here (an annotation, an assignment, a calibration answer): the
   * team cache's live sync pushes it shortly (handlers/team.ts sets it; nothing elsewhere).
   */
  reviewSaved: () => void = () => undefined
  /** The active account: its session, client and cache. Null when none is open. */
  runtime: AccountRuntime | null = null
  /** Settles when a runtime rebuilt by a settings change has its session back. */
  rebuilding: Promise<void> = Promise.resolve()

  constructor(readonly platform: PlatformServices) {
    this.limiters = new RateLimiterRegistry({ clock: platform.clock, onWait: this.waits.emit })
    this.connectivity = new Connectivity((online) =>
      platform.events.emit('connectivity.changed', { online, checkedAt: platform.clock.now() })
    )
    this.migrateSettings()
  }

  /** Brings stored settings up to date once at start; a failure to save leaves them as they were. */
  private migrateSettings(): void {
    const current = this.settings()
    const migrated = migrateSavedSearches(current, this.platform.systemZone)
    if (migrated === current) return
    try {
      this.saveSettings(migrated)
    } catch (e) {
      this.platform.logger.log('warn', 'Saved searches could not be migrated to relative ranges', {
        error: e instanceof Error ? e.message : String(e)
      })
    }
  }

  settings(): Settings {
    return this.platform.settingsStore.get()
  }

  /** Validates and stores the whole settings object; returns what was stored. */
  saveSettings(next: Settings): Settings {
    return this.platform.settingsStore.set(next)
  }

  /** The zone dates are shown in: the setting, or the system's. */
  displayZone(): string {
    const z = this.settings().displayZone
    return z === 'system' ? this.platform.systemZone : z
  }

  sessionState(): SessionState {
    const { tokenPersistence } = this.platform
    const rt = this.runtime
    return {
      status: rt?.session.status ?? 'signedOut',
      account: rt?.account ?? null,
      tokensPersisted: tokenPersistence.persist && !(rt?.account.demo ?? false),
      ...noticeOf(rt?.session.notice ?? (rt && !tokenPersistence.persist ? tokenPersistence : null))
    }
  }

  readonly emitSession = (): void => this.platform.events.emit('session.changed', this.sessionState())

  /**
   * Every account used this run keeps its runtime here, active or not, so its session (and,
   * without a secure key store, its in-memory tokens) lives on while another account is
   * active: switching back needs no new sign-in. Only the active runtime holds its cache open.
   */
  private readonly runtimes = new Map<string, AccountRuntime>()

  /** A runtime for `account` that is not active yet (a sign-in that may still fail). */
  runtimeFor(account: Account): AccountRuntime {
    return new AccountRuntime(account, this.platform, this.limiters)
  }

  /**
   * The runtime this run keeps for `account`, made (and its saved tokens restored) on first
   * use; a kept runtime that connects differently (another zone) is rebuilt with its tokens.
   */
  async runtimeOf(account: Account): Promise<AccountRuntime> {
    const kept = this.runtimes.get(account.id)
    if (kept && sameConnection(kept.account, account)) return kept
    const rt = this.runtimeFor(account)
    if (kept) await rt.adoptTokensFrom(kept)
    try {
      await rt.session.restore()
    } catch (e) {
      this.platform.logger.log('warn', 'could not restore the session', { code: toErrorInfo(e).code })
    }
    if (kept && this.runtime === kept) this.install(rt)
    else {
      kept?.closeCache()
      this.runtimes.set(account.id, rt)
    }
    return rt
  }

  /**
   * Before another account becomes active: a sync or a team pull writes into the cache being
   * left, whose handle closes, so it is cancelled and awaited (the run is recorded as
   * cancelled; the next sync of that account resumes from what it stored). Exports read
   * through their own connection and finish.
   */
  async leaveFor(accountId: string): Promise<void> {
    if (!this.runtime || this.runtime.account.id === accountId) return
    await Promise.all([this.syncs.cancelAll(), this.pulls.cancelAll()])
  }

  /** Makes `rt` the active runtime, releasing the previous one's cache and listeners. */
  install(rt: AccountRuntime): AccountRuntime {
    if (rt === this.runtime) return rt
    const previous = this.runtime
    if (previous) {
      previous.closeCache()
      previous.session.off('state', this.emitSession)
    }
    // A new sign-in to an account replaces the runtime kept for it.
    const replaced = this.runtimes.get(rt.account.id)
    if (replaced && replaced !== rt && replaced !== previous) replaced.closeCache()
    this.runtimes.set(rt.account.id, rt)
    rt.session.on('state', this.emitSession)
    this.runtime = rt
    return rt
  }

  /** The active runtime for `account`: the current one when it connects the same way. */
  activate(account: Account): AccountRuntime {
    const rt = this.runtime
    if (rt && rt.account.id === account.id && sameConnection(rt.account, account)) return rt
    const kept = this.runtimes.get(account.id)
    if (kept && sameConnection(kept.account, account)) return this.install(kept)
    return this.install(this.runtimeFor(account))
  }

  /** The runtime kept for an account id this run, if any (active or not). */
  keptRuntime(id: string): AccountRuntime | undefined {
    return this.runtimes.get(id)
  }

  requireRuntime(): AccountRuntime {
    if (!this.runtime) throw new CallsightError('NotSignedIn', 'Sign in or start the demo first.')
    return this.runtime
  }

  requireSignedIn(): AccountRuntime {
    const rt = this.requireRuntime()
    if (rt.session.status !== 'signedIn' && rt.session.status !== 'refreshing') {
      throw new CallsightError('NotSignedIn', 'Sign in to the service to do this; local search works without it.')
    }
    return rt
  }

  /** Forgets an account's runtime (removed from this computer); closes its cache. */
  dropRuntime(id: string): void {
    const rt = this.runtimes.get(id)
    this.runtimes.delete(id)
    if (!rt) return
    rt.closeCache()
    rt.session.off('state', this.emitSession)
    if (this.runtime === rt) this.runtime = null
  }

  /** Closes every account's cache and forgets the runtimes (the app is closing). */
  closeAll(): void {
    for (const rt of this.runtimes.values()) rt.closeCache()
    this.runtime?.closeCache()
    this.runtimes.clear()
    this.runtime = null
  }
}

function noticeOf(n: SessionNotice | TokenPersistence | null): Pick<SessionState, 'notice' | 'noticeCode'> {
  return n ? { notice: n.notice, noticeCode: n.noticeCode } : { notice: null, noticeCode: null }
}

function sameConnection(a: Account, b: Account): boolean {
  return a.baseUrl === b.baseUrl && a.username === b.username && a.zone === b.zone
}
