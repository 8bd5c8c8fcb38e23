/** What every route needs: tenants, tokens, faults, statistics and the response style. */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FaultState, Stats } from './faults'
import { ABP_HEADERS, abpError, drop, faultResponse, send, type Outcome } from './http'
import type { LoginThrottle } from './login-throttle'
import type { Tenant } from './tenants'
import type { TokenService } from './tokens'
import type { Envelope } from './types'

export interface ServiceContext {
  tenants: Map<string, Tenant>
  defaultTenant: Tenant
  tokens: TokenService
  faults: FaultState
  stats: Stats
  envelope: Envelope
  adminKey: string
  /** Failed sign-ins and unknown refresh tokens, per user name and address. */
  logins: LoginThrottle
  /** Verified against when the login names nobody, so unknown users cost what known ones do. */
  dummyHash: string
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** Wraps a public route: latency, drop and error faults, then the handler, then body faults. */
export function publicRoute(ctx: ServiceContext, path: string, handler: (req: FastifyRequest) => Promise<Outcome>) {
  return async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const latency = ctx.faults.latency(path)
    if (latency > 0) await sleep(latency)
    const action = ctx.faults.before(path)
    if (action.kind === 'drop') return drop(req, reply, path, ctx.stats)
    const out = action.kind === 'error' ? faultResponse(action.status) : await handler(req)
    send(req, reply, path, out, ctx.faults, ctx.stats)
  }
}

/** The tenant's IP allow list; null when the caller may go on. */
export function refuseAddress(tenant: Tenant, ip: string): Outcome | null {
  if (tenant.allow && !tenant.allow(ip)) {
    return {
      status: 403,
      body: abpError('Service:IpNotAllowed', 'Your IP address is not allowed to access this service.'),
      headers: ABP_HEADERS
    }
  }
  return null
}

/** Too many failed sign-ins from this address or for this user name. */
export function tooManyLogins(retryAfterSeconds: number): Outcome {
  return {
    status: 429,
    body: abpError('Service:TooManyLoginAttempts', `Too many failed sign-in attempts. Retry after ${retryAfterSeconds} seconds.`),
    headers: { ...ABP_HEADERS, 'retry-after': String(retryAfterSeconds), 'cache-control': 'no-store' }
  }
}

/** IP allow list, then the tenant's shared rate limit; null when the request may go on. */
export function admitToTenant(tenant: Tenant, ip: string): Outcome | null {
  const refused = refuseAddress(tenant, ip)
  if (refused) return refused
  const admission = tenant.limiter.admit(Date.now())
  if (!admission.ok) {
    const s = admission.retryAfterSeconds
    return {
      status: 429,
      body: abpError('Service:RateLimitExceeded', `Too many requests for this tenant. Retry after ${s} seconds.`),
      headers: { ...ABP_HEADERS, 'retry-after': String(s) }
    }
  }
  return null
}
