/** Accounts, sessions and signing in. */
import { z } from 'zod'
import { StoredTeamCacheSource } from '../team'
import { IanaZone } from './time'

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

/** https everywhere, plain http only for loopback (the demo and local test services). */
export function isAllowedBaseUrl(raw: string): boolean {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return false
  }
  if (url.username || url.password || url.search || url.hash) return false
  if (url.protocol === 'https:') return true
  const host = url.hostname.toLowerCase()
  return url.protocol === 'http:' && (LOOPBACK_HOSTS.has(host) || /^127\.\d+\.\d+\.\d+$/.test(host))
}

export const BaseUrl = z
  .string()
  .trim()
  .max(2048)
  .refine(isAllowedBaseUrl, { message: 'Use an https:// address (plain http only for this computer)' })
  .transform((s) => s.replace(/\/+$/, ''))

export const RateLimit = z.object({
  requests: z.number().int().min(1).max(1_000_000),
  perSeconds: z.number().int().min(1).max(86_400)
})
export type RateLimit = z.infer<typeof RateLimit>
export { DEFAULT_RATE_LIMIT } from '../service-limits'

export const Account = z.object({
  id: z.string().min(1).max(100),
  label: z.string().max(200),
  baseUrl: BaseUrl,
  username: z.string().min(1).max(320),
  /** The zone the service reads sent dates in and converts callDate to. */
  zone: IanaZone,
  rateLimit: RateLimit,
  demo: z.boolean().default(false),
  /** Calls come from the team cache (docs/team.md) instead of syncing from the service. */
  teamCache: StoredTeamCacheSource.optional()
})
export type Account = z.infer<typeof Account>

export const SessionStatus = z.enum(['signedOut', 'signedIn', 'refreshing', 'reloginRequired'])
export type SessionStatus = z.infer<typeof SessionStatus>

/**
 * Which notice `notice` is, so the UI can say it in its own language; the core's English
 * sentence stays in `notice` for logs and the CLI.
 */
export const SessionNoticeCode = z.enum(['browserMode', 'noKeyring', 'encryptionUnavailable', 'notSaved', 'reloginRequired'])
export type SessionNoticeCode = z.infer<typeof SessionNoticeCode>

export const SessionState = z.object({
  status: SessionStatus,
  account: Account.nullable(),
  /** Whether tokens survive a restart (false with no real OS keyring). */
  tokensPersisted: z.boolean(),
  /** Why the user will have to sign in again, when that is so. */
  notice: z.string().nullable(),
  noticeCode: SessionNoticeCode.nullable()
})
export type SessionState = z.infer<typeof SessionState>

export const SignInRequest = z.object({
  baseUrl: BaseUrl,
  username: z.string().trim().min(1).max(320),
  password: z.string().min(1).max(1024),
  zone: IanaZone.optional(),
  rateLimit: RateLimit.optional()
})
export type SignInRequest = z.infer<typeof SignInRequest>

/** One account set up on this computer, as the account switcher lists it (never its tokens). */
export const AccountEntry = z.object({
  account: Account,
  active: z.boolean(),
  /** Whether it can be used without signing in again (its tokens are held or saved). */
  status: SessionStatus
})
export type AccountEntry = z.infer<typeof AccountEntry>
