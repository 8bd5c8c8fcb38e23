import type { Account, SessionState, Settings, SyncProgress } from '../../shared/domain'
import type { TeamPullProgress } from '../../shared/team'
import { CallsightError } from '../errors'
import { RateLimiterRegistry } from '../ratelimit'
import { WaitFeed } from '../sync'
import { AccountRuntime } from './account-runtime'
import { Connectivity } from './connectivity'
import { migrateSavedSearches } from './saved-searches'
import type { PlatformServices } from './platform'
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
      notice: rt?.session.notice ?? (rt && !tokenPersistence.persist ? tokenPersistence.notice : null)
    }
  }

  readonly emitSession = (): void => this.platform.events.emit('session.changed', this.sessionState())

  /** A runtime for `account` that is not active yet (a sign-in that may still fail). */
  runtimeFor(account: Account): AccountRuntime {
    return new AccountRuntime(account, this.platform, this.limiters)
  }

  /** Makes `rt` the active runtime, releasing the previous one's cache and listeners. */
  install(rt: AccountRuntime): AccountRuntime {
    this.runtime?.closeCache()
    this.runtime?.session.removeAllListeners('state')
    rt.session.on('state', this.emitSession)
    this.runtime = rt
    return rt
  }

  /** The active runtime for `account`: the current one when it connects the same way. */
  activate(account: Account): AccountRuntime {
    const rt = this.runtime
    if (rt && rt.account.id === account.id && sameConnection(rt.account, account)) return rt
    return this.install(this.runtimeFor(account))
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

  /** Closes the active account's cache and forgets the runtime. */
  closeRuntime(): void {
    this.runtime?.closeCache()
    this.runtime = null
  }
}

function sameConnection(a: Account, b: Account): boolean {
  return a.baseUrl === b.baseUrl && a.username === b.username && a.zone === b.zone
}
