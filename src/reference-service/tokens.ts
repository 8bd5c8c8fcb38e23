/**
 * Access tokens are HS256 JWTs signed with a random per-instance secret (a restart logs
 * everyone out, as a real key rotation would). Refresh tokens are opaque random strings
 * tracked server-side by their SHA-256, rotated on every use, OpenIddict style: a redeemed
 * token still works within the reuse leeway; later reuse revokes its whole family.
 *
 * Records are pruned, as OpenIddict's pruning job does: an expired token is forgotten a day
 * after it expired, a redeemed one a day after it was redeemed (until then a late reuse
 * still revokes its family), and a revoked family once none of its tokens can be valid.
 * Without this every sign-in and refresh added a record that was never removed.
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

export type RedeemResult = { ok: true; principal: Principal; family: string } | { ok: false; description: string; tenant?: string }

const digest = (token: string): string => createHash('sha256').update(token).digest('base64url')

const DAY_MS = 86_400_000
/** How long expired and redeemed records are kept, so their errors stay precise. */
export const RETENTION_MS = DAY_MS
/** At most one sweep per minute, and one whenever the map has doubled since the last. */
const SWEEP_EVERY_MS = 60_000

export class TokenService {
  private readonly secret = new Uint8Array(randomBytes(32))
  private readonly refresh = new Map<string, RefreshRecord>()
  /** Family -> when the last token it could hold expires. */
  private readonly revokedFamilies = new Map<string, number>()
  private lastSweep = 0
  private sweepSize = 1024

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
    this.maybeSweep()
    this.refresh.set(digest(token), { principal: p, family, expiresAt: this.now() + this.refreshTtlSeconds * 1000 })
    return token
  }

  /** Refresh records held, and revoked families remembered (tests check they are pruned). */
  get held(): { tokens: number; revokedFamilies: number } {
    return { tokens: this.refresh.size, revokedFamilies: this.revokedFamilies.size }
  }

  private maybeSweep(): void {
    const now = this.now()
    if (now - this.lastSweep < SWEEP_EVERY_MS && this.refresh.size < this.sweepSize) return
    this.sweep(now)
  }

  /** Forgets what can no longer matter; see the note at the top. */
  sweep(now: number = this.now()): void {
    for (const [key, rec] of this.refresh) {
      const expired = now >= rec.expiresAt + RETENTION_MS
      const longRedeemed = rec.redeemedAt !== undefined && now >= rec.redeemedAt + RETENTION_MS
      if (expired || longRedeemed) this.refresh.delete(key)
    }
    for (const [family, until] of this.revokedFamilies) if (now >= until) this.revokedFamilies.delete(family)
    this.lastSweep = now
    this.sweepSize = Math.max(1024, this.refresh.size * 2)
  }

  /** The tenant a refresh token belongs to, for rate limiting and IP checks before redeeming. */
  tenantOf(token: string): string | undefined {
    return this.refresh.get(digest(token))?.principal.tenant
  }

  redeem(token: string): RedeemResult {
    this.maybeSweep()
    const rec = this.refresh.get(digest(token))
    if (!rec) return { ok: false, description: 'The specified refresh token is invalid.' }
    const tenant = rec.principal.tenant
    if (this.revokedFamilies.has(rec.family)) return { ok: false, description: 'The specified refresh token has been revoked.', tenant }
    const now = this.now()
    if (now >= rec.expiresAt) return { ok: false, description: 'The specified refresh token has expired.', tenant }
    if (rec.redeemedAt !== undefined) {
      if (now - rec.redeemedAt > this.leewaySeconds * 1000) {
        // Reuse after the leeway looks like a stolen token: OpenIddict revokes the whole chain.
        // No token of the family is issued after this, so none outlives a full lifetime.
        this.revokedFamilies.set(rec.family, now + this.refreshTtlSeconds * 1000)
        return { ok: false, description: 'The specified refresh token has already been redeemed.', tenant }
      }
    } else {
      rec.redeemedAt = now
    }
    return { ok: true, principal: rec.principal, family: rec.family }
  }
}
