import { createServiceClient } from '../core/client'
import { CallsightError } from '../core/errors'
import type { Cipher, Logger } from '../core/platform'
import { MemoryStore } from '../core/platform/node'
import { TenantRateLimiter, type RequestPacer } from '../core/ratelimit'
import { Session, TokenVault } from '../core/session'
import { WaitFeed } from '../core/sync'
import { BaseUrl, DEFAULT_RATE_LIMIT, type RateLimit } from '../shared/domain'
import { check } from './args'
import type { LimiterFactory } from './parts'
import { readPassword } from './password'

/**
 * The CLI keeps tokens in memory for the run only: every command signs in anew. A cipher
 * that admits it is not secure makes the vault hold them in memory and persist nothing.
 */
const memoryOnly: Cipher = {
  backend: 'cli-memory',
  secure: false,
  encrypt: () => Promise.reject(new Error('The CLI does not persist tokens')),
  decrypt: () => Promise.reject(new Error('The CLI does not persist tokens'))
}

export interface Connection {
  session: Session
  limiter: RequestPacer
  waits: WaitFeed
  rateLimit: RateLimit
  baseUrl: string
}

export async function connect(opts: {
  server: string
  user: string
  zone: string
  rateLimit?: RateLimit
  logger: Logger
  signal?: AbortSignal
  /** The tenant's limiter; default TenantRateLimiter. */
  newLimiter?: LimiterFactory | undefined
  /** Each 429 answer the service gives, with the wait it asked for (the worker's metrics count them). */
  onRateLimited?: (ms: number) => void
}): Promise<Connection> {
  const baseUrl = check(BaseUrl, opts.server, '--server')
  if (opts.user.trim() === '') throw new CallsightError('InvalidInput', '--user is required.')
  const rateLimit = opts.rateLimit ?? DEFAULT_RATE_LIMIT
  const waits = new WaitFeed()
  const newLimiter = opts.newLimiter ?? ((limit, o) => new TenantRateLimiter(limit, o))
  const limiter = newLimiter(rateLimit, { onWait: waits.emit })
  const client = createServiceClient({
    baseUrl,
    zone: opts.zone,
    fetch: (input, init) => fetch(input, init),
    limiter,
    logger: opts.logger,
    onWait: (w) => {
      if (w.reason === 'retryAfter') opts.onRateLimited?.(w.ms)
      waits.emit(w)
    }
  })
  const session = new Session({
    client,
    vault: new TokenVault(new MemoryStore(), memoryOnly, baseUrl, { insecure: 'memoryOnly' }),
    logger: opts.logger
  })
  const password = await readPassword()
  await session.login(opts.user.trim(), password, opts.signal)
  return { session, limiter, waits, rateLimit, baseUrl }
}
