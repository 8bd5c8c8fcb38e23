import type { Logger, LogLevel } from '../platform'

const SECRET_KEY = /authorization|token|password|passwd|secret|cookie|api[-_]?key|credential/i
const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g
const FORM_SECRET = /((?:refresh_token|access_token|password)=)[^&\s]+/gi

/** A string with anything that looks like a credential replaced. */
export function redactString(s: string): string {
  return s.replace(BEARER, '$1 [REDACTED]').replace(JWT, '[REDACTED]').replace(FORM_SECRET, '$1[REDACTED]')
}

/** Log fields with secret-named keys blanked and credential-looking strings redacted, deeply. */
export function redactFields(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactString(value)
  if (depth > 8 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((v) => redactFields(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? '[REDACTED]' : redactFields(v, depth + 1)
  return out
}

/** Wraps a logger so nothing written through it can carry a token, password or auth header. */
export function redactingLogger(inner: Logger): Logger {
  return {
    log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
      inner.log(level, redactString(message), fields === undefined ? undefined : (redactFields(fields) as Record<string, unknown>))
    }
  }
}
