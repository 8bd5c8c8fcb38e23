import { CallsightError } from '../errors'
import { maskText } from '../pii'
import type { FieldMessage } from '../../shared/errors'
import { AbpErrorBody, OAuthError, ProblemDetails } from './schemas'

/** Which endpoint answered; the same status means different things on each. */
export type Endpoint = 'login' | 'refresh' | 'calls'

export interface HttpFailure {
  status: number
  headers: Headers
  body: string
}

export const MESSAGES = {
  invalidCredentials: 'The user name or password is not correct.',
  reloginRequired: 'Your session with the service has ended; please sign in again.',
  ipNotAllowed: "The service does not accept connections from this computer's network address.",
  ipNotAllowedHint:
    "Ask the service operators to add this workstation's egress IP address (or its network range, in CIDR form) to the tenant's allow list.",
  unauthorized: 'The service did not accept the sign-in token.',
  validation: 'The service rejected the request as invalid.',
  serverError: (status: number) => `The service had an internal problem (HTTP ${status}); please try again later.`,
  network: 'Could not reach the service; check the network connection and the service address.',
  refused: 'Nothing answered at the service address: the connection was refused.',
  brokenResponse: 'The connection to the service broke off in the middle of a response; please try again.',
  timeout: (seconds: number) => `The service did not answer within ${seconds} second${seconds === 1 ? '' : 's'}.`,
  malformed: 'The service sent a response Callsight could not read.',
  tooLarge: (bytes: number) =>
    `The service sent a response larger than ${formatBytes(bytes)}, more than this request can need; it was not read.`,
  redirected: (status: number, target: string) =>
    `The service answered with a redirect (HTTP ${status}) to ${target}. Callsight does not follow redirects, so your password and tokens go only to the address you entered.`,
  redirectedHint: "If the service has moved, change the account's service address to its new address.",
  rateLimited: (seconds: number) =>
    `The service is receiving too many requests for this account; it asked to wait ${seconds} second${seconds === 1 ? '' : 's'}.`,
  unknownCallType: (name: string) => `The service does not know the call type "${name}".`,
  unexpected: (status: number) => `The service answered with an unexpected status (HTTP ${status}).`
} as const

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body) as unknown
  } catch {
    return undefined
  }
}

/** Server text shown to a person: one line, short, and with any personal data masked. */
function clean(s: string): string {
  const one = s.replace(/\s+/g, ' ').trim()
  return maskText(one.length > 200 ? `${one.slice(0, 197)}...` : one)
}

/** Field messages from ABP's format, ProblemDetails, or an OAuth error description. */
export function parseFieldMessages(f: HttpFailure): { fields: FieldMessage[]; summary: string | null } {
  const json = parseJson(f.body)
  const abpHeader = f.headers.get('_AbpErrorFormat') ?? f.headers.get('_abperrorformat')
  const abp = AbpErrorBody.safeParse(json)
  if (abp.success && (abpHeader !== null || abp.data.error.validationErrors || abp.data.error.message)) {
    const e = abp.data.error
    const fields = (e.validationErrors ?? [])
      .filter((v) => v.message)
      .map((v) => ({ members: (v.members ?? []).map(clean), message: clean(v.message ?? '') }))
    return { fields, summary: e.message ? clean(e.message) : null }
  }
  const pd = ProblemDetails.safeParse(json)
  if (pd.success && pd.data.errors) {
    const fields = Object.entries(pd.data.errors).flatMap(([member, msgs]) =>
      (Array.isArray(msgs) ? msgs : [msgs]).map((m) => ({ members: member ? [clean(member)] : [], message: clean(m) }))
    )
    return { fields, summary: pd.data.title ? clean(pd.data.title) : null }
  }
  const oauth = OAuthError.safeParse(json)
  if (oauth.success) {
    return { fields: [], summary: oauth.data.error_description ? clean(oauth.data.error_description) : clean(oauth.data.error) }
  }
  return { fields: [], summary: null }
}

/**
 * The call type the service complained about, if it did. The status for this case is not in
 * the spec, so the body is read: a message naming issueTypeNames (or "call/issue type") and
 * one of the names that were sent.
 */
function unknownCallType(f: HttpFailure, sent: readonly string[]): string | null {
  if (sent.length === 0) return null
  const text = f.body
  if (!/issueTypeNames?|call\s*type|issue\s*type/i.test(text)) return null
  const quoted = [...text.matchAll(/["'\u201c\u2018]([^"'\u201d\u2019]{1,200})["'\u201d\u2019]/g)].map((m) => m[1])
  const named = sent.find((n) => quoted.includes(n)) ?? sent.find((n) => text.includes(n))
  if (named) return named
  return sent.length === 1 ? sent[0]! : null
}

function oauthError(body: string): string | null {
  const r = OAuthError.safeParse(parseJson(body))
  return r.success ? r.data.error : null
}

/** One HTTP failure (not 429, not retried 5xx) as the error a person will read. */
export function mapHttpFailure(f: HttpFailure, endpoint: Endpoint, sentCallTypes: readonly string[] = []): CallsightError {
  const status = f.status
  if (status === 403) return new CallsightError('IpNotAllowed', MESSAGES.ipNotAllowed, { hint: MESSAGES.ipNotAllowedHint, status })
  if (status >= 500) return new CallsightError('ServerError', MESSAGES.serverError(status), { status })

  if (endpoint === 'login' && (status === 400 || status === 401)) {
    const code = oauthError(f.body)
    if (status === 401 || code === 'invalid_grant') {
      return new CallsightError('InvalidCredentials', MESSAGES.invalidCredentials, { status })
    }
  }
  if (endpoint === 'refresh' && (status === 400 || status === 401)) {
    return new CallsightError('ReloginRequired', MESSAGES.reloginRequired, { status })
  }
  if (status === 401) return new CallsightError('Unauthorized', MESSAGES.unauthorized, { status })

  if (status >= 400 && status < 500) {
    const ct = unknownCallType(f, sentCallTypes)
    if (ct !== null) return new CallsightError('UnknownCallType', MESSAGES.unknownCallType(ct), { callType: ct, status })
    if (status === 400 || status === 422) {
      const { fields, summary } = parseFieldMessages(f)
      const first = fields[0]?.message ?? summary
      const message = first ? `${MESSAGES.validation.slice(0, -1)}: ${first.replace(/[.!]+$/, '')}.` : MESSAGES.validation
      return new CallsightError('Validation', message, { fields, status })
    }
  }
  return new CallsightError('ServerError', MESSAGES.unexpected(status), { status })
}
