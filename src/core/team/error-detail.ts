import { toErrorInfo } from '../errors'

/** What the team cache keeps of an error's detail: enough to act on, bounded so a row stays small. */
export const ERROR_DETAIL_MAX = 2048

const SECRETS: Array<[RegExp, string]> = [
  // A connection string's password.
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)[^\s@/]*@/gi, '$1***@'],
  [/\b(password|passwd|pwd|secret|token|access_token|refresh_token|api[_-]?key)(["']?\s*[=:]\s*["']?)[^\s"'&,;}]+/gi, '$1$2***'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/g, '$1 ***']
]

export function redactSecrets(text: string): string {
  return SECRETS.reduce((t, [re, by]) => t.replace(re, by), text)
}

/**
 * The error's cause chain as one line each (message, SQLSTATE, HTTP status), redacted and
 * bounded: what "details are in the log" used to point at, kept where status can show it.
 */
export function errorDetail(e: unknown): string {
  const parts: string[] = []
  const seen = new Set<unknown>()
  let cur: unknown = e
  for (let depth = 0; depth < 6 && cur !== undefined && cur !== null && !seen.has(cur); depth++) {
    seen.add(cur)
    if (typeof cur === 'object') {
      const o = cur as { name?: unknown; message?: unknown; code?: unknown; status?: unknown; statusCode?: unknown; cause?: unknown }
      const bits = [typeof o.name === 'string' ? o.name : 'Error']
      if (typeof o.code === 'string' || typeof o.code === 'number') bits.push(`code ${String(o.code)}`)
      const status = typeof o.status === 'number' ? o.status : typeof o.statusCode === 'number' ? o.statusCode : undefined
      if (status !== undefined) bits.push(`HTTP ${status}`)
      parts.push(`${bits.join(', ')}: ${typeof o.message === 'string' ? o.message : String(cur)}`)
      cur = o.cause
    } else {
      parts.push(String(cur))
      cur = undefined
    }
  }
  if (parts.length === 0) {
    const info = toErrorInfo(e)
    parts.push(`${info.code}: ${info.message}`)
  }
  const text = redactSecrets(parts.join('\n  caused by '))
  return text.length <= ERROR_DETAIL_MAX ? text : `${text.slice(0, ERROR_DETAIL_MAX - 1)}…`
}
