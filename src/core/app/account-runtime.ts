import { createHash } from 'node:crypto'
import { join } from 'node:path'
import type { Account, SyncProgress } from '../../shared/domain'
import { openCache, type CallCache } from '../cache'
import { createSearch, type LocalSearch, type WarmUp } from '../search'
import { createServiceClient } from '../client'
import type { RateLimiterRegistry, TenantRateLimiter } from '../ratelimit'
import { Session, TokenVault } from '../session'
import { makePrivateDir } from '../platform/private-files'
import type { PlatformServices } from './host-ports'

/** A stable, file-name-safe id for an account: the same service and user give the same id. */
export function accountIdFor(baseUrl: string, username: string): string {
  return createHash('sha256').update(`${baseUrl.toLowerCase()}\n${username.toLowerCase()}`).digest('hex').slice(0, 16)
}

export function accountDbPath(userData: string, accountId: string): string {
  return join(userData, 'accounts', `${accountId}.sqlite`)
}

/**
 * Everything that belongs to one account while it is active: the tenant's limiter, the
 * service client, the session with its token vault, and the account's cache. The cache opens
 * without a session, so offline search works signed out.
 */
export class AccountRuntime {
  private accountValue: Account
  readonly session: Session
  readonly limiter: TenantRateLimiter
  private readonly vault: TokenVault
  private cacheValue: CallCache | null = null
  /**
   * This account's latest sync run since the app started, as its last progress event said:
   * the sync screen shows it again when the account is switched back to (sync.scopes; runs
   * from before the app started come from the cache's sync_runs).
   */
  lastSync: SyncProgress | null = null
  private searchValue: LocalSearch | null = null
  private warmUp: WarmUp | null = null

  private readonly rateLimitedListeners = new Set<(ms: number) => void>()

  /** Told each 429 the service answers this account's requests with, and the wait it asked for. */
  onRateLimited(listener: (ms: number) => void): () => void {
    this.rateLimitedListeners.add(listener)
    return () => {
      this.rateLimitedListeners.delete(listener)
    }
  }

  constructor(
    account: Account,
    private readonly platform: PlatformServices,
    private readonly limiters: RateLimiterRegistry
  ) {
    this.accountValue = account
    this.limiter = limiters.forTenant(account.baseUrl, account.rateLimit)
    const client = createServiceClient({
      baseUrl: account.baseUrl,
      zone: account.zone,
      fetch: platform.fetch,
      limiter: this.limiter,
      clock: platform.clock,
      logger: platform.logger,
      onWait: (w) => {
        if (w.reason !== 'retryAfter') return
        for (const l of this.rateLimitedListeners) l(w.ms)
      }
    })
    this.vault = new TokenVault(platform.secretStore, platform.cipher, account.id, {
      insecure: platform.tokenPersistence.persist ? 'refuse' : 'memoryOnly'
    })
    this.session = new Session({ client, vault: this.vault, clock: platform.clock, logger: platform.logger })
  }

  get account(): Account {
    return this.accountValue
  }

  /**
   * Applies edits that need no new client: the label and the tenant's rate limit (the
   * limiter is shared per tenant and takes the new limit in place). A new zone changes how
   * dates are sent and read, so the caller builds a new runtime for that instead.
   */
  update(account: Account): void {
    if (account.id !== this.accountValue.id || account.zone !== this.accountValue.zone || account.baseUrl !== this.accountValue.baseUrl) {
      throw new Error('AccountRuntime.update cannot change the account, its zone or its address')
    }
    this.limiters.forTenant(account.baseUrl, account.rateLimit)
    this.accountValue = account
  }

  /**
   * Takes over the tokens of the runtime this one replaces (same account, rebuilt for a new
   * zone). Persisted tokens would be found anyway; tokens kept in memory only (no secure key
   * store) would otherwise be lost, and the user signed out by a settings change.
   */
  async adoptTokensFrom(previous: AccountRuntime): Promise<void> {
    if (previous === this || previous.account.id !== this.account.id) return
    const tokens = await previous.vault.load()
    if (tokens) await this.vault.save(tokens)
  }

  get dbPath(): string {
    return accountDbPath(this.platform.paths.userData, this.account.id)
  }

  /** The account's cache, opened on first use (migrations run then). */
  get cache(): CallCache {
    if (!this.cacheValue) {
      makePrivateDir(join(this.platform.paths.userData, 'accounts'))
      // A long migration (schema 7 rebuilds the search index) blocks this process while it
      // runs; the log says how far it got, a tenth at a time.
      let tenth = -1
      this.cacheValue = openCache(this.dbPath, {
        clock: this.platform.clock,
        nativeBinding: this.platform.nativeBinding,
        onMigrationProgress: (p) => {
          const now = Math.floor((p.done / Math.max(1, p.total)) * 10)
          if (now === tenth) return
          tenth = now
          this.platform.logger.log('info', 'Updating the cache: rebuilding the search index', {
            schema: p.version,
            done: p.done,
            total: p.total
          })
        }
      })
    }
    return this.cacheValue
  }

  get search(): LocalSearch {
    if (!this.searchValue) {
      // Why each page came back like this (page-plan.ts), for whoever reads the debug log.
      this.searchValue = createSearch(this.cache, {}, { onPlan: (trace) => this.platform.logger.log('debug', 'search page', { ...trace }) })
      // What the first query of each kind would read cold is read between requests, from the
      // next turn of the event loop on (after the request that opened the search).
      this.warmUp = this.searchValue.warmUp()
    }
    return this.searchValue
  }

  /**
   * A second, read-only connection for long reads (exports): a streaming statement keeps its
   * connection busy, and searches must go on meanwhile. WAL lets both read at once.
   */
  openReader(): { search: LocalSearch; cache: CallCache; close(): void } {
    void this.cache // make sure the file exists and is migrated first
    const reader = openCache(this.dbPath, { clock: this.platform.clock, readonly: true, nativeBinding: this.platform.nativeBinding })
    return { search: createSearch(reader), cache: reader, close: () => reader.close() }
  }

  /** Drops the open cache handle (after clearing it, or on account switch). */
  closeCache(): void {
    this.warmUp?.stop()
    this.warmUp = null
    this.searchValue = null
    this.cacheValue?.close()
    this.cacheValue = null
  }
}
