/**
 * The reference Voice Call Search Service, written from the spec alone
 * (docs/service.md lists every choice the spec leaves open).
 */
import { randomBytes } from 'node:crypto'
import Fastify from 'fastify'
import { createAdmin, parseInstant } from './admin'
import { loadTenants } from './config'
import type { ServiceContext } from './context'
import { FaultState, Stats } from './faults'
import { DEFAULT_LOGIN_LIMITS, LoginThrottle } from './login-throttle'
import { hashPassword } from './passwords'
import { registerAdminRoutes } from './routes/admin'
import { registerAuthRoutes } from './routes/auth'
import { registerCallRoutes } from './routes/calls'
import { buildTenant, type Tenant } from './tenants'
import { TokenService } from './tokens'
import type { RunningService, ServiceOptions } from './types'

export type * from './types'

const DAY = 86_400

export async function startService(opts: ServiceOptions = {}): Promise<RunningService> {
  const host = opts.host ?? '127.0.0.1'
  const nowSec = Math.floor(Date.now() / 1000)
  const to = opts.to ? parseInstant(opts.to, 'to') : nowSec
  const from = opts.from ? parseInstant(opts.from, 'from') : to - 90 * DAY
  if (!(from < to)) throw new Error('from must be earlier than to')
  const dense = (opts.denseSeconds ?? []).map((d) => {
    if (!(Number.isInteger(d.count) && d.count >= 0)) throw new Error(`Dense second count must be a whole number: ${d.count}`)
    return { at: parseInstant(d.at, 'dense second'), count: d.count }
  })

  const configs = loadTenants(opts)
  const tenants = new Map<string, Tenant>()
  for (const [i, cfg] of configs.entries()) {
    tenants.set(cfg.name, await buildTenant(cfg, opts.dateFormat ?? 'offset', { from, to }, i === 0 ? dense : []))
  }
  const ctx: ServiceContext = {
    tenants,
    defaultTenant: tenants.get(configs[0]!.name)!,
    tokens: new TokenService(
      opts.tokenTtlSeconds ?? 604_800,
      opts.refreshTtlSeconds ?? 14 * DAY,
      opts.refreshLeewaySeconds ?? 30,
      opts.tokenClock ?? Date.now
    ),
    faults: new FaultState(opts.seed ?? 1, opts.faults),
    stats: new Stats(),
    envelope: opts.envelope ?? 'paged',
    adminKey: randomBytes(18).toString('base64url'),
    logins: new LoginThrottle({ ...DEFAULT_LOGIN_LIMITS, ...opts.loginLimits }),
    // A hash of nothing anyone knows, made like every user's: same cost, same time to check.
    dummyHash: await hashPassword(randomBytes(24).toString('base64url'))
  }
  const admin = createAdmin(ctx)

  const app = Fastify({ logger: false, forceCloseConnections: true, bodyLimit: 1024 * 1024 })
  // Every route reads its body as text and parses it itself: the spec's error shapes
  // (OAuth codes, ABP validation) must cover empty and malformed bodies too.
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body))
  registerAuthRoutes(app, ctx)
  registerCallRoutes(app, ctx)
  registerAdminRoutes(app, ctx, admin)

  await app.listen({ host, port: opts.port ?? 0 })
  const address = app.server.address()
  if (address === null || typeof address === 'string') throw new Error('The service did not bind a TCP port')
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`
  return {
    url,
    adminKey: ctx.adminKey,
    admin,
    stop: () => app.close()
  }
}
