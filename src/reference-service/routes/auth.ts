/**
 * Endpoint 1 (password → tokens, JSON) and endpoint 2 (OpenIddict-style refresh, form).
 * Token responses are never cached (Cache-Control: no-store, Pragma: no-cache).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { admitToTenant, publicRoute, refuseAddress, tooManyLogins, type ServiceContext } from '../context'
import type { Outcome } from '../http'
import { foldLogin, type LoginKey } from '../login-throttle'
import { verifyPassword } from '../passwords'
import type { Tenant, User } from '../tenants'
import { SCOPE, type Principal } from '../tokens'

export const TOKEN_PATH = '/api/public/auth/token'
export const CONNECT_PATH = '/connect/token'
export const CLIENT_ID = 'ServicePublic_App'

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' }
const credentialsSchema = z.object({ username: z.string().min(1), password: z.string().min(1) })

const oauthError = (status: number, error: string, description?: string): Outcome => ({
  status,
  body: description ? { error, error_description: description } : { error },
  headers: NO_STORE
})

async function tokenResponse(ctx: ServiceContext, p: Principal, family?: string): Promise<Outcome> {
  const access = await ctx.tokens.issueAccess(p)
  return {
    status: 200,
    headers: NO_STORE,
    body: {
      token_type: 'Bearer',
      access_token: access.token,
      expires_in: access.expiresIn,
      refresh_token: ctx.tokens.issueRefresh(p, family),
      scope: SCOPE
    }
  }
}

/** The user's tenant: the `__tenant` header (ABP's tenant resolver) or the first tenant that has the login. */
function resolveLogin(ctx: ServiceContext, req: FastifyRequest, login: string): { tenant: Tenant | undefined; user: User | undefined } {
  const named = req.headers['__tenant']
  if (typeof named === 'string' && named !== '') {
    const tenant = ctx.tenants.get(named)
    return { tenant, user: tenant?.findUser(login) }
  }
  for (const tenant of ctx.tenants.values()) {
    const user = tenant.findUser(login)
    if (user) return { tenant, user }
  }
  return { tenant: undefined, user: undefined }
}

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string' || text.trim() === '') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

export function registerAuthRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.post(
    TOKEN_PATH,
    publicRoute(ctx, TOKEN_PATH, async (req) => {
      const creds = credentialsSchema.safeParse(parseJson(req.body))
      if (!creds.success) return oauthError(400, 'invalid_request', 'The request body must be JSON with username and password.')
      // Guessing is limited per user name and per address, never against a tenant's API limit:
      // made-up logins must not use up the budget that the tenant's real users sync with.
      const key: LoginKey = { user: foldLogin(creds.data.username), address: req.ip }
      const wait = ctx.logins.retryAfter(key, Date.now())
      if (wait > 0) return tooManyLogins(wait)
      const { tenant, user } = resolveLogin(ctx, req, creds.data.username)
      // Always one hash: an unknown user costs what a known one does, so timing names nobody.
      const verified = await verifyPassword(creds.data.password, user?.passwordHash ?? ctx.dummyHash)
      if (tenant && user) {
        // After the hash, for the same reason; and whatever the password, so an address
        // outside the allow list learns nothing about it.
        const outside = refuseAddress(tenant, req.ip)
        if (outside) return outside
      }
      if (!tenant || !user || !verified) {
        ctx.logins.failed(key, Date.now())
        return { status: 401, body: { error: 'invalid_grant' }, headers: NO_STORE }
      }
      ctx.logins.succeeded(key)
      // A real sign-in is a request of its tenant like any other.
      const refused = admitToTenant(tenant, req.ip)
      if (refused) return refused
      return tokenResponse(ctx, { tenant: tenant.name, username: user.username, email: user.email })
    })
  )

  app.post(
    CONNECT_PATH,
    publicRoute(ctx, CONNECT_PATH, async (req) => {
      const type = String(req.headers['content-type'] ?? '')
      if (!type.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
        return oauthError(400, 'invalid_request', "The specified 'Content-Type' header is invalid.")
      }
      const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '')
      const grantType = form.get('grant_type')
      const clientId = form.get('client_id')
      const refreshToken = form.get('refresh_token')
      if (!grantType) return oauthError(400, 'invalid_request', "The mandatory 'grant_type' parameter is missing.")
      if (grantType !== 'refresh_token') return oauthError(400, 'unsupported_grant_type', 'The specified grant type is not supported.')
      if (!clientId) return oauthError(400, 'invalid_request', "The mandatory 'client_id' parameter is missing.")
      if (clientId !== CLIENT_ID) return oauthError(401, 'invalid_client', 'The specified client_id is invalid.')
      if (!refreshToken) return oauthError(400, 'invalid_request', "The mandatory 'refresh_token' parameter is missing.")
      // A token the service never issued (or has forgotten) belongs to no tenant: it is a
      // failed attempt of its address, not a request against the default tenant's limit.
      const key: LoginKey = { address: req.ip }
      const wait = ctx.logins.retryAfter(key, Date.now())
      if (wait > 0) return tooManyLogins(wait)
      const tenantName = ctx.tokens.tenantOf(refreshToken)
      const tenant = tenantName === undefined ? undefined : ctx.tenants.get(tenantName)
      if (tenant === undefined) {
        ctx.logins.failed(key, Date.now())
        return oauthError(400, 'invalid_grant', 'The specified refresh token is invalid.')
      }
      const refused = admitToTenant(tenant, req.ip)
      if (refused) return refused
      const redeemed = ctx.tokens.redeem(refreshToken)
      if (!redeemed.ok) {
        ctx.logins.failed(key, Date.now())
        return oauthError(400, 'invalid_grant', redeemed.description)
      }
      return tokenResponse(ctx, redeemed.principal, redeemed.family)
    })
  )
}
