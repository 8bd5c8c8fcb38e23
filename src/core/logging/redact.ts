import type { Logger, LogLevel } from '../platform'

/**
 * Scrubs secrets from anything bound for a log or an error message: values under
 * secret-sounding keys, bearer credentials, JWTs, password/token parameters inside free text
 * and the password of a connection string. A log is something a user may attach to a support
 * ticket; it must be safe to share. One set of rules for every writer (the client's logger,
 * the app's file log), so a secret one of them hides is never shown by another.
 */
export const REDACTED = '[REDACTED]'

const SECRET_KEY = /^(pwd|x-api-key)$|authorization|cookie|token|password|passwd|secret|credential|api[-_]?key/i

const TEXT_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // "Authorization: Bearer abc", "Bearer abc", "Basic abc"
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // JWTs anywhere: three base64url parts, the first starting like a JSON header.
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  // key=value and "key": "value" for secret-sounding keys in URLs, forms and JSON text.
  [
    /((?:access_token|refresh_token|id_token|token|password|passwd|sslpassword|secret|client_secret|api_key)\s*["']?\s*[=:]\s*["']?)[^"'&\s,}]+/gi,
    `$1${REDACTED}`
  ],
  // The password of scheme://user:password@host (a PostgreSQL connection string).
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@\s/]+@/gi, `$1${REDACTED}@`]
]

export function redactText(text: string): string {
  let out = text
  for (const [pattern, replacement] of TEXT_PATTERNS) out = out.replace(pattern, replacement)
  return out
}

/** A value with secret-named keys blanked and credential-looking strings redacted, deeply. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return redactText(value)
  if (value === null || typeof value !== 'object') return value
  if (depth > 8) return '[…]'
  if (value instanceof Error) {
    return redact({ name: value.name, message: value.message, stack: value.stack }, depth + 1)
  }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  if (value instanceof Uint8Array) return `[${value.byteLength} bytes]`
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_KEY.test(k) ? REDACTED : redact(v, depth + 1)
  }
  return out
}

/** Wraps a logger so nothing written through it can carry a token, password or auth header. */
export function redactingLogger(inner: Logger): Logger {
  return {
    log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
      inner.log(level, redactText(message), fields === undefined ? undefined : (redact(fields) as Record<string, unknown>))
    }
  }
}
