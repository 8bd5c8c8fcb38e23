/**
 * /__admin/*: faults and data changes while running. Only from loopback peers, and only with
 * the random key printed at start in the `x-admin-key` header.
 */
import { timingSafeEqual } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { dumpRecords } from '../admin'
import type { ServiceContext } from '../context'
import { faultsSchema } from '../faults'
import type { ServiceAdmin } from '../types'

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/i

export function isLoopback(address: string | undefined): boolean {
  return LOOPBACK.test(address ?? '')
}
const tenantField = { tenant: z.string().optional() }

const schemas = {
  rateLimit: z.object({ requests: z.number().int().positive(), perSeconds: z.number().positive(), ...tenantField }),
  allowList: z.object({ list: z.array(z.string()).nullable(), ...tenantField }),
  tokenTtl: z.object({ seconds: z.number().int().min(0) }),
  addCalls: z.object({
    count: z.number().int().min(1).max(5_000_000),
    from: z.string().optional(),
    to: z.string().optional(),
    ...tenantField
  }),
  updateCalls: z.object({ count: z.number().int().min(1), ...tenantField })
}

function keyMatches(given: unknown, key: string): boolean {
  if (typeof given !== 'string') return false
  const a = Buffer.from(given)
  const b = Buffer.from(key)
  return a.length === b.length && timingSafeEqual(a, b)
}

export function registerAdminRoutes(app: FastifyInstance, ctx: ServiceContext, admin: ServiceAdmin): void {
  const guarded =
    <T>(schema: z.ZodType<T> | null, run: (body: T, req: FastifyRequest) => unknown) =>
    async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      if (!isLoopback(req.socket.remoteAddress)) return void reply.code(403).send({ error: 'admin is loopback only' })
      if (!keyMatches(req.headers['x-admin-key'], ctx.adminKey)) return void reply.code(401).send({ error: 'bad or missing x-admin-key' })
      let body: unknown = {}
      if (typeof req.body === 'string' && req.body.trim() !== '') {
        try {
          body = JSON.parse(req.body)
        } catch {
          return void reply.code(400).send({ error: 'body is not JSON' })
        }
      }
      const parsed = schema ? schema.safeParse(body) : { success: true as const, data: body as T }
      if (!parsed.success)
        return void reply.code(400).send({ error: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') })
      try {
        const result = run(parsed.data, req)
        reply.code(200).send(result ?? { ok: true })
      } catch (e) {
        reply.code(400).send({ error: e instanceof Error ? e.message : String(e) })
      }
    }

  app.get(
    '/__admin/stats',
    guarded(null, () => admin.stats())
  )
  app.post(
    '/__admin/stats/reset',
    guarded(null, () => admin.resetStats())
  )
  app.post(
    '/__admin/faults',
    guarded(faultsSchema, (f) => admin.setFaults(f))
  )
  app.delete(
    '/__admin/faults',
    guarded(null, () => admin.clearFaults())
  )
  app.post(
    '/__admin/rate-limit',
    guarded(schemas.rateLimit, (b) => admin.setRateLimit({ requests: b.requests, perSeconds: b.perSeconds }, b.tenant))
  )
  app.post(
    '/__admin/allow-list',
    guarded(schemas.allowList, (b) => admin.setAllowList(b.list, b.tenant))
  )
  app.post(
    '/__admin/token-ttl',
    guarded(schemas.tokenTtl, (b) => admin.setTokenTtl(b.seconds))
  )
  app.post(
    '/__admin/calls',
    guarded(schemas.addCalls, (b) => ({ total: admin.addCalls(b.count, b) }))
  )
  app.post(
    '/__admin/calls/update',
    guarded(schemas.updateCalls, (b) => ({ callIds: admin.updateCalls(b.count, b) }))
  )
  app.get(
    '/__admin/dump',
    guarded(null, (_b, req) => {
      const name = (req.query as { tenant?: string }).tenant
      const tenant = name === undefined ? ctx.defaultTenant : ctx.tenants.get(name)
      if (!tenant) throw new Error(`Unknown tenant "${name}"`)
      let out = ''
      for (const r of dumpRecords(tenant)) out += `${JSON.stringify(r)}\n`
      return out
    })
  )
}
