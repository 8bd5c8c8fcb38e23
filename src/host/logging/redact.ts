/**
 * Scrubs secrets from anything bound for the log: values under secret-sounding keys,
 * bearer credentials, JWTs and password/token parameters inside free text. The log is
 * something a user may attach to a support ticket; it must be safe to share.
 */
export const REDACTED = '[REDACTED]'

const SECRET_KEY =
  /^(authorization|proxy-authorization|cookie|set-cookie|password|passwd|pwd|secret|client_secret|api[-_]?key|x-api-key)$|token|password|secret|credential/i

const TEXT_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // "Authorization: Bearer abc", "Bearer abc", "Basic abc"
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // JWTs anywhere: three base64url parts, the first starting like a JSON header.
  [/\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, REDACTED],
  // key=value and "key": "value" for secret-sounding keys in URLs, forms and JSON text.
  [
    /((?:access_token|refresh_token|id_token|token|password|passwd|secret|client_secret|api_key)\s*["']?\s*[=:]\s*["']?)[^"'&\s,}]+/gi,
    `$1${REDACTED}`
  ]
]

export function redactText(text: string): string {
  let out = text
  for (const [pattern, replacement] of TEXT_PATTERNS) out = out.replace(pattern, replacement)
  return out
}

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
