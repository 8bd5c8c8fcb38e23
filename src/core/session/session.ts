import { EventEmitter } from 'node:events'
import { CallsightError, cancelled } from '../errors'
import type { Clock, Logger } from '../platform'
import { silentLogger, systemClock } from '../platform/node'
import { MESSAGES } from '../client/error-map'
import { redactingLogger } from '../logging/redact'
import type { CallsPage, GetCallsParams, ServiceClient, TokenSet } from '../client/service-client'
import type { SessionNoticeCode, SessionStatus } from '../../shared/domain'
import type { SaveOutcome, TokenVault } from './token-vault'

export interface SessionOptions {
  client: ServiceClient
  vault: TokenVault
  clock?: Clock
  logger?: Logger
  /**
   * Refresh this long before the access token expires; default 5 minutes, but never more
   * than a fifth of the token's lifetime, so short-lived tokens are not refreshed constantly.
   */
  refreshLeewayMs?: number
}

export interface SessionEvents {
  state: [status: SessionStatus]
}

const TRANSIENT = new Set(['Network', 'Timeout', 'ServerError', 'RateLimited'])
const NOT_SIGNED_IN = 'Sign in to the service first.'
/** A notice in the core's English, with the code the UI translates it by. */
export interface SessionNotice {
  notice: string
  noticeCode: SessionNoticeCode
}

export const NOT_SAVED_NOTICE =
  'Your sign-in could not be saved on this computer. You stay signed in until Callsight closes; then you will need to sign in again.'
/** The spec's access-token lifetime; assumed for tokens restored from the vault. */
const SPEC_LIFETIME_MS = 604_800_000

/**
 * One account's authorized access to the service. Every protected call goes through
 * `authorized`, which refreshes before expiry, and on a 401 joins the single in-flight
 * refresh (or starts it) and retries once. The service rotates refresh tokens and revokes the
 * whole family when an old one is reused, so there is never more than one refresh at a time.
 */
export class Session extends EventEmitter<SessionEvents> {
  private tokens: TokenSet | null = null
  private lifetimeMs = SPEC_LIFETIME_MS
  private statusValue: SessionStatus = 'signedOut'
  private noticeValue: SessionNotice | null = null
  /** Set while the tokens in use exist in memory only because saving them failed. */
  private storageNotice: SessionNotice | null = null
  private inflight: Promise<TokenSet> | null = null
  /** Bumped on sign-in and sign-out, so a refresh that finishes late cannot resurrect tokens. */
  private signInEpoch = 0
  private refreshCount = 0
  private readonly client: ServiceClient
  private readonly vault: TokenVault
  private readonly clock: Clock
  private readonly log: Logger
  private readonly leewayMs: number

  constructor(opts: SessionOptions) {
    super()
    this.client = opts.client
    this.vault = opts.vault
    this.clock = opts.clock ?? systemClock
    this.log = redactingLogger(opts.logger ?? silentLogger)
    this.leewayMs = opts.refreshLeewayMs ?? 300_000
  }

  get status(): SessionStatus {
    return this.statusValue
  }

  /** Why the user must sign in again, or that the sign-in lives in memory only. */
  get notice(): SessionNotice | null {
    return this.noticeValue ?? this.storageNotice
  }

  get tokensPersisted(): boolean {
    return this.vault.persists
  }

  /** Refreshes performed in this process (tests prove single-flight with it). */
  get refreshes(): number {
    return this.refreshCount
  }

  get expiresAt(): number | null {
    return this.tokens?.expiresAt ?? null
  }

  private setStatus(s: SessionStatus, notice: SessionNotice | null = null): void {
    this.noticeValue = notice
    if (s === this.statusValue) return
    this.statusValue = s
    this.emit('state', s)
  }

  /** User name or e-mail and password; the password is used for this request only. */
  async login(username: string, password: string, signal?: AbortSignal): Promise<void> {
    const tokens = await this.client.login(username, password, signal)
    this.signInEpoch++
    // The vault keeps the pair in memory before it writes; only a policy refusal throws here.
    const saved = await this.vault.save(tokens)
    this.adopt(tokens)
    this.noteSave(saved)
    this.log.log('info', 'signed in')
  }

  /** Picks up tokens saved by an earlier run; false when there are none usable. */
  async restore(): Promise<boolean> {
    const tokens = await this.vault.load()
    if (!tokens) return false
    this.signInEpoch++
    this.tokens = tokens
    this.lifetimeMs = SPEC_LIFETIME_MS
    this.setStatus('signedIn')
    return true
  }

  async signOut(): Promise<void> {
    this.signInEpoch++
    this.tokens = null
    this.inflight = null
    this.storageNotice = null
    this.vault.clear()
    this.setStatus('signedOut')
  }

  private noteSave(saved: SaveOutcome): void {
    const failed = !saved.persisted && saved.failed
    this.storageNotice = failed ? { notice: NOT_SAVED_NOTICE, noticeCode: 'notSaved' } : null
    if (failed) this.log.log('warn', 'new tokens kept in memory only: saving them failed')
  }

  private adopt(tokens: TokenSet): void {
    this.tokens = tokens
    this.lifetimeMs = Math.max(0, tokens.expiresAt - this.clock.now())
    this.setStatus('signedIn')
  }

  private needsRefresh(t: TokenSet): boolean {
    const leeway = Math.min(this.leewayMs, this.lifetimeMs / 5)
    return this.clock.now() >= t.expiresAt - leeway
  }

  /** An access token good for now, refreshing first when it is about to expire. */
  async accessToken(signal?: AbortSignal): Promise<string> {
    const t = this.tokens
    if (!t) throw this.notSignedIn()
    if (!this.needsRefresh(t)) return t.accessToken
    try {
      return (await this.refreshShared(t.accessToken, signal)).accessToken
    } catch (e) {
      // An early refresh that failed for a passing reason leaves a token that still works.
      const passing = e instanceof CallsightError && TRANSIENT.has(e.code)
      if (passing && this.tokens === t && this.clock.now() < t.expiresAt) return t.accessToken
      throw e
    }
  }

  private notSignedIn(): CallsightError {
    return this.statusValue === 'reloginRequired'
      ? new CallsightError('ReloginRequired', MESSAGES.reloginRequired)
      : new CallsightError('NotSignedIn', NOT_SIGNED_IN)
  }

  /**
   * Joins the refresh in flight or starts one. `stale` is the access token the caller found
   * wanting: if the session already holds a newer one, that is returned without a refresh.
   * The refresh itself is not tied to any caller's signal, since others may be waiting on it.
   */
  private refreshShared(stale: string, signal?: AbortSignal): Promise<TokenSet> {
    const current = this.tokens
    if (!current) return Promise.reject(this.notSignedIn())
    if (current.accessToken !== stale && !this.inflight) return Promise.resolve(current)
    if (!this.inflight) {
      const run = this.runRefresh(current)
      this.inflight = run
      void run.then(
        () => this.clearInflight(run),
        () => this.clearInflight(run)
      )
    }
    return abortable(this.inflight, signal)
  }

  private clearInflight(p: Promise<TokenSet>): void {
    if (this.inflight === p) this.inflight = null
  }

  private async runRefresh(current: TokenSet): Promise<TokenSet> {
    const epoch = this.signInEpoch
    this.refreshCount++
    this.setStatus('refreshing')
    let next: TokenSet
    try {
      next = await this.client.refresh(current.refreshToken)
    } catch (e) {
      if (epoch !== this.signInEpoch) throw e
      if (e instanceof CallsightError && ['ReloginRequired', 'InvalidCredentials', 'Unauthorized'].includes(e.code)) {
        this.tokens = null
        this.vault.clear()
        this.setStatus('reloginRequired', { notice: MESSAGES.reloginRequired, noticeCode: 'reloginRequired' })
        this.log.log('warn', 'refresh refused; sign-in required')
        throw new CallsightError('ReloginRequired', MESSAGES.reloginRequired, { status: e.status })
      }
      // Transient (network, 5xx): the tokens may still be good; try again on the next call.
      this.setStatus('signedIn')
      throw e
    }
    if (epoch !== this.signInEpoch) throw cancelled('The sign-in refresh')
    // The service has spent the old refresh token: the new pair is adopted before anything
    // else can fail, then saved (to memory first, then to disk). A failed write keeps the
    // pair in memory with a notice instead of losing it, which would send the spent token
    // again and get the whole token family revoked.
    this.adopt(next)
    this.noteSave(await this.vault.save(next))
    this.log.log('info', 'tokens refreshed')
    return next
  }

  /**
   * Runs `call` with a provider of a valid access token; on Unauthorized, refreshes once
   * (shared) and retries once. `call` asks the provider only when its request is about to
   * leave (after the tenant limiter's wait), so the token cannot age while it queues. The
   * sync engine and remote search use this for every protected request.
   */
  async authorized<T>(call: (token: () => Promise<string>) => Promise<T>, signal?: AbortSignal): Promise<T> {
    let used: string | null = null
    const provide = async (): Promise<string> => {
      used = await this.accessToken(signal)
      return used
    }
    try {
      return await call(provide)
    } catch (e) {
      if (!(e instanceof CallsightError) || e.code !== 'Unauthorized' || used === null) throw e
      await this.refreshShared(used, signal)
      return call(provide)
    }
  }

  getCalls(params: GetCallsParams, signal?: AbortSignal): Promise<CallsPage> {
    return this.authorized((token) => this.client.getCalls(params, token, signal), signal)
  }
}

/** Waits for a shared promise but lets this one waiter give up when its signal aborts. */
function abortable<T>(p: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return p
  if (signal.aborted) return Promise.reject(cancelled('The request'))
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(cancelled('The request'))
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(e)
      }
    )
  })
}
