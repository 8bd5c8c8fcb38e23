/**
 * Sending responses through one place, so that faults (malformed or truncated JSON) and
 * statistics apply the same way to every public route.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { FaultState, Stats } from './faults'

export interface Outcome {
  status: number
  /** JSON value to serialise; a string is sent as is; undefined = empty body. */
  body?: unknown
  headers?: Record<string, string>
  contentType?: string
}

export const abpError = (code: string | null, message: string, extra?: { details?: string | null; validationErrors?: unknown }) => ({
  error: { code, message, details: extra?.details ?? null, data: {}, validationErrors: extra?.validationErrors ?? null }
})

export const ABP_HEADERS = { _AbpErrorFormat: 'true' }

export function send(req: FastifyRequest, reply: FastifyReply, path: string, out: Outcome, faults: FaultState, stats: Stats): void {
  let payload = ''
  let contentType = out.contentType ?? 'application/json; charset=utf-8'
  if (typeof out.body === 'string') payload = out.body
  else if (out.body !== undefined) payload = JSON.stringify(out.body)
  else contentType = ''
  const fault = out.status === 200 && payload ? faults.body(path) : 'none'
  if (fault === 'truncate') {
    // Promise the whole body, deliver half, then cut the connection: the client sees a
    // premature close, as with a proxy that died mid-response.
    stats.record(path, 'dropped')
    reply.hijack()
    const bytes = Buffer.from(payload)
    reply.raw.writeHead(200, { 'content-type': contentType, 'content-length': String(bytes.length), ...out.headers })
    reply.raw.write(bytes.subarray(0, bytes.length >> 1), () => req.raw.socket.destroy())
    return
  }
  if (fault === 'malformed') {
    // A complete HTTP response whose body is not JSON: cut mid-value, length consistent.
    payload = payload.slice(0, Math.max(1, payload.length >> 1))
  }
  stats.record(path, out.status)
  reply.code(out.status)
  if (out.headers) reply.headers(out.headers)
  if (contentType) reply.header('content-type', contentType)
  reply.send(payload)
}

/** Destroys the connection without a response (a "dropped connection" fault). */
export function drop(req: FastifyRequest, reply: FastifyReply, path: string, stats: Stats): void {
  stats.record(path, 'dropped')
  reply.hijack()
  req.raw.socket.destroy()
}

export function faultResponse(status: number): Outcome {
  if (status === 500) return { status, body: abpError(null, 'An internal error occurred during your request!'), headers: ABP_HEADERS }
  const reason = status === 502 ? 'Bad Gateway' : status === 503 ? 'Service Unavailable' : status === 504 ? 'Gateway Timeout' : 'Error'
  return {
    status,
    body: `<html><head><title>${status} ${reason}</title></head><body><h1>${status} ${reason}</h1></body></html>`,
    contentType: 'text/html'
  }
}
