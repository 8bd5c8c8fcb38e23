/**
 * Failed sign-ins, counted apart from the tenant's API limit: per user name and per client
 * address, each in a sliding window. A made-up login used to count against the default
 * tenant's API limit before the password was checked, so 60 of them blocked every user's
 * sync for a minute; now they only slow down whoever sends them. A success clears that user
 * name's count (not the address's: one address may be guessing many names).
 */
import type { RateLimit } from './types'

export interface LoginLimits {
  perUser: RateLimit
  perAddress: RateLimit
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = {
  perUser: { requests: 10, perSeconds: 60 },
  perAddress: { requests: 30, perSeconds: 60 }
}

export interface LoginKey {
  /** The login as typed, folded; absent for refresh tokens, which name no user. */
  user?: string
  address: string
}

/** Failure times per key within one window; keys with none left are dropped. */
class FailureWindows {
  private readonly failures = new Map<string, number[]>()
  private sweepAt = 1024

  constructor(private readonly limit: RateLimit) {}

  private recent(key: string, now: number): number[] {
    const since = now - this.limit.perSeconds * 1000
    const times = (this.failures.get(key) ?? []).filter((t) => t > since)
    if (times.length === 0) this.failures.delete(key)
    else this.failures.set(key, times)
    return times
  }

  /** Seconds until another attempt is allowed, or 0. */
  retryAfter(key: string, now: number): number {
    const times = this.recent(key, now)
    if (times.length < this.limit.requests) return 0
    const oldest = times[times.length - this.limit.requests]!
    return Math.max(1, Math.ceil((oldest + this.limit.perSeconds * 1000 - now) / 1000))
  }

  record(key: string, now: number): void {
    const times = this.recent(key, now)
    times.push(now)
    // Keep no more than the window can judge, so one key cannot grow without bound.
    this.failures.set(key, times.slice(-this.limit.requests))
    if (this.failures.size >= this.sweepAt) this.sweep(now)
  }

  clear(key: string): void {
    this.failures.delete(key)
  }

  /** Drops keys whose failures have all left the window; many distinct names cannot pile up. */
  private sweep(now: number): void {
    for (const key of [...this.failures.keys()]) this.recent(key, now)
    this.sweepAt = Math.max(1024, this.failures.size * 2)
  }

  get size(): number {
    return this.failures.size
  }
}

export class LoginThrottle {
  private readonly users: FailureWindows
  private readonly addresses: FailureWindows

  constructor(limits: LoginLimits = DEFAULT_LOGIN_LIMITS) {
    this.users = new FailureWindows(limits.perUser)
    this.addresses = new FailureWindows(limits.perAddress)
  }

  /** Seconds to wait before this attempt may be judged, or 0 when it may go on. */
  retryAfter(key: LoginKey, now: number): number {
    const byAddress = this.addresses.retryAfter(key.address, now)
    const byUser = key.user === undefined ? 0 : this.users.retryAfter(key.user, now)
    return Math.max(byAddress, byUser)
  }

  failed(key: LoginKey, now: number): void {
    this.addresses.record(key.address, now)
    if (key.user !== undefined) this.users.record(key.user, now)
  }

  succeeded(key: LoginKey): void {
    if (key.user !== undefined) this.users.clear(key.user)
  }

  /** Keys held (for the tests that check nothing grows without bound). */
  get keys(): number {
    return this.users.size + this.addresses.size
  }
}

export const foldLogin = (login: string): string => login.trim().toLowerCase()
