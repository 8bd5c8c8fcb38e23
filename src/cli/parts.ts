import type { RequestPacer, TenantRateLimiterOptions } from '../core/ratelimit'
import type { RateLimit } from '../shared/domain'

/** Makes the limiter that paces a command's requests to the service. */
export type LimiterFactory = (limit: RateLimit, opts: TenantRateLimiterOptions) => RequestPacer

/**
 * What a command is built from that another entry point may supply: by default (absent) the
 * product's own. Types only here: the CLI's start-up loads no command's code (index.ts).
 */
export interface CliParts {
  /** The tenant's limiter (default: TenantRateLimiter). */
  newLimiter?: LimiterFactory
}
