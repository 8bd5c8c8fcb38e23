/**
 * Access tokens are HS256 JWTs signed with a random per-instance secret (a restart logs
 * everyone out, as a real key rotation would). Refresh tokens are opaque random strings
 * tracked server-side by their SHA-256, rotated on every use, OpenIddict style: a redeemed
 * token still works within the reuse leeway; later reuse revokes its whole family.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { SignJWT, jwtVerify } from 'jose'

export const SCOPE = 'Service.Public offline_access'
const ISSUER = 'callsight-reference-service'
const AUDIENCE = 'Service'

export interface Principal {
  tenant: string
  username: string
  email: string
}

interface RefreshRecord {
  principal: Principal
  family: string
  expiresAt: number
  redeemedAt?: number
}

export type RedeemResult =
  | { ok: true; principal: Principal; family: string }
  | { ok: false; description: string; tenant?: string }

const digest = (token: string): string => createHash('sha256').update(token).digest('base64url')

export class TokenService {
  private readonly secret = new Uint8Array(randomBytes(32))
  private readonly refresh = new Map<string, RefreshRecord>()
  private readonly revokedFamilies = new Set<string>()

  constructor(
    public accessTtlSeconds: number,
    public refreshTtlSeconds: number,
    public leewaySeconds: number,
    private readonly now: () => number = Date.now
  ) {}

  async issueAccess(p: Principal): Promise<{ token: string; expiresIn: number }> {
    const iat = Math.floor(this.now() / 1000)
    const token = await new SignJWT({ tenant: p.tenant, preferred_username: p.username, email: p.email, scope: SCOPE })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setSubject(p.username)
      .setIssuer(ISSUER)
      .setAudience(AUDIENCE)
      .setJti(randomUUID())
      .setIssuedAt(iat)
      .setExpirationTime(iat + this.accessTtlSeconds)
      .sign(this.secret)
    return { token, expiresIn: this.accessTtlSeconds }
  }

  /** The principal of a valid, unexpired access token, or null. */
  async verifyAccess(token: string): Promise<Principal | null> {
    try {
      const { payload } = await jwtVerify(token, this.secret, {
        issuer: ISSUER,
        audience: AUDIENCE,
        algorithms: ['HS256'],
        currentDate: new Date(this.now())
      })
      const { tenant, preferred_username: username, email } = payload
      if (typeof tenant !== 'string' || typeof username !== 'string' || typeof email !== 'string') return null
      return { tenant, username, email }
    } catch {
      return null
    }
  }

  issueRefresh(p: Principal, family: string = randomUUID()): string {
    const token = randomBytes(32).toString('base64url')
    this.refresh.set(digest(token), { principal: p, family, expiresAt: this.now() + this.refreshTtlSeconds * 1000 })
    return token
  }

  /** The tenant a refresh token belongs to, for rate limiting and IP checks before redeeming. */
  tenantOf(token: string): string | undefined {
    return this.refresh.get(digest(token))?.principal.tenant
  }

  redeem(token: string): RedeemResult {
    const rec = this.refresh.get(digest(token))
    if (!rec) return { ok: false, description: 'The specified refresh token is invalid.' }
    const tenant = rec.principal.tenant
    if (this.revokedFamilies.has(rec.family)) return { ok: false, description: 'The specified refresh token has been revoked.', tenant }
    const now = this.now()
    if (now >= rec.expiresAt) return { ok: false, description: 'The specified refresh token has expired.', tenant }
    if (rec.redeemedAt !== undefined) {
      if (now - rec.redeemedAt > this.leewaySeconds * 1000) {
        // Reuse after the leeway looks like a stolen token: OpenIddict revokes the whole chain.
        this.revokedFamilies.add(rec.family)
        return { ok: false, description: 'The specified refresh token has already been redeemed.', tenant }
      }
    } else {
      rec.redeemedAt = now
    }
    return { ok: true, principal: rec.principal, family: rec.family }
  }
}
