import { randomBytes } from 'node:crypto'
import { startService } from '../../../src/reference-service'
import type { RunningService, ServiceOptions } from '../../../src/reference-service'
import { createServiceClient, type ServiceClient, type ServiceClientOptions } from '../../../src/core/client'
import { createAesGcmCipher } from '../../../src/core/crypto/aes-cipher'
import type { Clock, Logger, LogLevel } from '../../../src/core/platform'
import { MemoryStore } from '../../../src/core/platform/node'
import { TenantRateLimiter } from '../../../src/core/ratelimit'
import { Session, TokenVault } from '../../../src/core/session'
import { CallsightError } from '../../../src/core/errors'
import type { RateLimit } from '../../../src/shared/domain'

export const DEMO = { username: 'demo', email: 'demo@callsight.local', password: 'demo' }
export const ZONE = 'Europe/Istanbul'
export const FROM = Date.parse('2026-01-01T00:00:00Z')
export const TO = Date.parse('2026-01-11T00:00:00Z')

/** A logger that keeps every line, so tests can prove no secret reached it. */
export class CapturingLogger implements Logger {
  readonly lines: string[] = []
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    this.lines.push(`${level} ${message} ${fields ? JSON.stringify(fields) : ''}`)
  }
}

export async function service(opts: ServiceOptions = {}): Promise<RunningService> {
  return startService({
    port: 0,
    calls: 300,
    seed: 4,
    from: new Date(FROM).toISOString(),
    to: new Date(TO).toISOString(),
    rateLimit: { requests: 1000, perSeconds: 1 },
    quiet: true,
    ...opts
  })
}

export interface Rig {
  client: ServiceClient
  session: Session
  vault: TokenVault
  store: MemoryStore
  limiter: TenantRateLimiter
  logger: CapturingLogger
}

export function rig(
  svc: RunningService,
  opts: {
    limit?: RateLimit
    clock?: Clock
    client?: Partial<ServiceClientOptions>
    refreshLeewayMs?: number
    store?: MemoryStore
    key?: Buffer
  } = {}
): Rig {
  const logger = new CapturingLogger()
  // Without a limit the limiter is not what a test is about: a thousand may go at once, so a
  // clock that a test holds still does not hold the requests.
  const limiterOpts = { ...(opts.clock ? { clock: opts.clock } : {}), ...(opts.limit ? {} : { burst: 1000 }) }
  const limiter = new TenantRateLimiter(opts.limit ?? { requests: 1000, perSeconds: 1 }, limiterOpts)
  const client = createServiceClient({
    baseUrl: svc.url,
    zone: ZONE,
    fetch: globalThis.fetch,
    limiter,
    logger,
    retry: { baseDelayMs: 5, maxDelayMs: 20 },
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...opts.client
  })
  const store = opts.store ?? new MemoryStore()
  const vault = new TokenVault(store, createAesGcmCipher(opts.key ?? randomBytes(32)), 'acct')
  const session = new Session({
    client,
    vault,
    logger,
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.refreshLeewayMs !== undefined ? { refreshLeewayMs: opts.refreshLeewayMs } : {})
  })
  return { client, session, vault, store, limiter, logger }
}

export const params = (over: Partial<Parameters<ServiceClient['getCalls']>[0]> = {}): Parameters<ServiceClient['getCalls']>[0] => ({
  from: FROM,
  to: TO,
  skip: 0,
  take: 50,
  ascending: true,
  callTypes: [],
  direction: null,
  results: 'all',
  hasNewRequest: null,
  includeAnalysis: false,
  ...over
})

/** The error a promise rejects with, as a CallsightError (fails the test otherwise). */
export async function failure(p: Promise<unknown>): Promise<CallsightError> {
  try {
    await p
  } catch (e) {
    if (e instanceof CallsightError) return e
    throw new Error(`Expected a CallsightError, got ${String(e)}`)
  }
  throw new Error('Expected a failure, got success')
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
