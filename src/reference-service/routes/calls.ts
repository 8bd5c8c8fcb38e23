/** Endpoint 3: search calls (Bearer token, tenant IP restriction, tenant rate limit, rules 1–7). */
import type { FastifyInstance } from 'fastify'
import { parseCallsRequest } from '../calls-request'
import { admitToTenant, publicRoute, type ServiceContext } from '../context'
import { ABP_HEADERS, abpError, type Outcome } from '../http'
import { renderRecord } from '../records'
import type { Envelope } from '../types'

export const CALLS_PATH = '/api/app/public-calls/get-calls'

const UNAUTHORIZED: Outcome = { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token"' } }

function validationFailure(errors: Array<{ message: string; members: string[] }>): Outcome {
  const details = `The following errors were detected during validation.\r\n${errors.map((e) => ` - ${e.message}\r\n`).join('')}`
  return { status: 400, body: abpError(null, 'Your request is not valid!', { details, validationErrors: errors }), headers: ABP_HEADERS }
}

function envelope(style: Envelope, totalCount: number, items: unknown[]): unknown {
  if (style === 'array') return items
  if (style === 'wrapped') return { result: { totalCount, items }, success: true }
  return { totalCount, items }
}

export function registerCallRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post(
    CALLS_PATH,
    publicRoute(ctx, CALLS_PATH, async (req) => {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(String(req.headers.authorization ?? ''))
      const principal = m ? await ctx.tokens.verifyAccess(m[1]!) : null
      const tenant = principal ? ctx.tenants.get(principal.tenant) : undefined
      const user = principal ? tenant?.findUser(principal.username) : undefined
      if (!tenant || !user) return UNAUTHORIZED
      const refused = admitToTenant(tenant, req.ip)
      if (refused) return refused

      let body: unknown = null
      if (typeof req.body === 'string' && req.body.trim() !== '') {
        try {
          body = JSON.parse(req.body)
        } catch {
          return validationFailure([{ message: 'The request body is not valid JSON.', members: ['input'] }])
        }
      }
      const parsed = parseCallsRequest(body, tenant, user.zone)
      if (!parsed.ok) return validationFailure(parsed.errors)
      const q = parsed.query
      const store = tenant.store
      const lo = q.from === -Infinity ? 0 : store.lowerBound(q.from)
      const hi = q.to === Infinity ? store.n : store.upperBound(q.to)
      const { total, positions } = store.scan(lo, hi, q.filter, q.skip, q.take, q.ascending)
      const items = positions.map((p) => renderRecord(tenant, p, user.formatter, q.includeAnalysis))
      return { status: 200, body: envelope(ctx.envelope, total, items) }
    })
  )
}
