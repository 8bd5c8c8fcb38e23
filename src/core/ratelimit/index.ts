export { TenantRateLimiter, RateLimiterRegistry, tenantLimiters, type LimiterWait, type TenantRateLimiterOptions } from './tenant-rate-limiter'
export { parseRetryAfter } from './retry-after'
