import type { AppErrorInfo, ErrorCode } from '../../../shared/errors'

/** What to show for an error: a message key with its parameters, and optional detail lines. */
export interface ErrorText {
  /** A key under `errors.` (or `teamErrors.`) in the message files. */
  key: `errors.${ErrorCode}` | 'errors.UnknownCallTypeLocal' | `teamErrors.${TeamErrorCode}`
  params: Record<string, string | number>
  /** The core's own sentence, shown under ours when ours is generic. */
  detail: string | null
  /** The core's advice, likewise only when our message is generic. */
  hint: string | null
}

/**
 * Codes whose message is specific enough on its own; for the others the core's sentence is
 * worth showing too. A Record over ErrorCode so adding a code without deciding fails to compile.
 */
const SELF_EXPLANATORY: Record<ErrorCode, boolean> = {
  InvalidCredentials: true,
  ReloginRequired: true,
  IpNotAllowed: true,
  RateLimited: true,
  Validation: false,
  UnknownCallType: true,
  Unauthorized: true,
  ServerError: false,
  Network: true,
  Timeout: true,
  MalformedResponse: false,
  Cancelled: true,
  InvalidInput: false,
  NotSignedIn: true,
  NotFound: false,
  DenseSecond: false,
  DatabaseTooNew: true,
  Storage: false,
  Forbidden: false,
  TeamSearchOff: true,
  Internal: false
}

/** Who answered: the service (the default), or the team cache (PostgreSQL), whose words differ. */
export type ErrorSource = 'service' | 'teamCache'

/**
 * Codes whose general words name the service or the local cache: where the team cache
 * answered, they have words of their own ("the service is unreachable" would send a person
 * to check the wrong server).
 */
const TEAM_CODES = ['InvalidCredentials', 'Network', 'Timeout', 'DatabaseTooNew', 'Storage'] as const
type TeamErrorCode = (typeof TEAM_CODES)[number]
const isTeamCode = (code: ErrorCode): code is TeamErrorCode => (TEAM_CODES as readonly ErrorCode[]).includes(code)

function fieldList(error: AppErrorInfo): string {
  const fields = error.fields ?? []
  if (fields.length === 0) return error.message
  return fields.map((f) => (f.members.length > 0 ? `${f.members.join(', ')}: ${f.message}` : f.message)).join('; ')
}

/** The one mapping from the error taxonomy to words, used by every screen. */
export function describeError(error: AppErrorInfo, source: ErrorSource = 'service'): ErrorText {
  const params: Record<string, string | number> = {}
  switch (error.code) {
    case 'RateLimited':
      params.seconds = Math.max(1, Math.ceil(error.retryAfterSeconds ?? 60))
      break
    case 'Validation':
    case 'InvalidInput':
      params.fields = fieldList(error)
      break
    case 'UnknownCallType':
      params.callType = error.callType ?? '?'
      // Refused by the cache's catalog rather than the service: offer the names it knows.
      if (error.knownCallTypes !== undefined) params.known = error.knownCallTypes.length > 0 ? error.knownCallTypes.join(', ') : '—'
      break
    case 'ServerError':
      params.status = error.status ?? 500
      break
    default:
      break
  }
  const selfExplanatory = SELF_EXPLANATORY[error.code] ?? false
  const detail = selfExplanatory || error.message.trim() === '' || params.fields === error.message ? null : error.message
  // A self-explanatory code already says what to do, in the user's language; the core's
  // (English) hint would only repeat it.
  const hint = selfExplanatory ? null : error.hint?.trim() || null
  const key: ErrorText['key'] =
    source === 'teamCache' && isTeamCode(error.code)
      ? `teamErrors.${error.code}`
      : error.code === 'UnknownCallType' && params.known !== undefined
        ? 'errors.UnknownCallTypeLocal'
        : `errors.${error.code}`
  return { key, params, detail, hint }
}

/** Turns a thrown value into the taxonomy; anything unexpected is Internal. */
export function toErrorInfo(error: unknown): AppErrorInfo {
  if (typeof error === 'object' && error !== null && 'info' in error) {
    const info = (error as { info: unknown }).info
    if (typeof info === 'object' && info !== null && 'code' in info && 'message' in info) return info as AppErrorInfo
  }
  return { code: 'Internal', message: error instanceof Error ? error.message : String(error) }
}
