import type { FetchLike } from '../../core/platform'

/**
 * The service's transport in the app: Electron's `net.request` (Chromium's network stack, so
 * system proxies, PAC and the OS certificate store apply), wrapped as the `FetchLike` core
 * expects.
 *
 * Why not `net.fetch`: it follows redirects by default, re-sending a 307's body (the user's
 * password, on the token endpoint) to wherever the Location points; with `redirect: 'manual'`
 * it fails with "Redirect was cancelled" and never says where the service pointed. Here a
 * redirect is answered as what it is, a 3xx with its Location, and never followed, so core
 * can refuse it with an error that names the target.
 */

/** The parts of Electron's ClientRequest this adapter uses (structural, so tests can fake it). */
export interface NetClientRequest {
  setHeader(name: string, value: string): void
  on(event: 'response', listener: (response: NetIncomingMessage) => void): this
  on(event: 'redirect', listener: (statusCode: number, method: string, redirectUrl: string) => void): this
  on(event: 'error', listener: (error: Error) => void): this
  abort(): void
  end(chunk?: string): void
}

/** The parts of Electron's IncomingMessage this adapter uses. */
export interface NetIncomingMessage {
  statusCode: number
  statusMessage: string
  headers: Record<string, string | string[]>
  on(event: 'data', listener: (chunk: Buffer) => void): this
  on(event: 'end' | 'aborted', listener: () => void): this
  on(event: 'error', listener: (error: Error) => void): this
}

export interface NetRequestOptions {
  url: string
  method: string
  redirect: 'manual'
  credentials: 'omit'
  useSessionCookies: false
  cache: 'no-store'
}

export type NetRequest = (options: NetRequestOptions) => NetClientRequest

const NULL_BODY_STATUS = new Set([101, 204, 205, 304])

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError')
}

export function createServiceFetch(request: NetRequest): FetchLike {
  return (input, init = {}) =>
    new Promise<Response>((resolve, reject) => {
      const signal = init.signal ?? undefined
      if (signal?.aborted) return reject(abortError(signal))
      if (init.body !== undefined && init.body !== null && typeof init.body !== 'string') {
        return reject(new TypeError('The service transport sends text bodies only.'))
      }
      const method = (init.method ?? 'GET').toUpperCase()
      // No cookies, no HTTP cache: the service's answers are per request and carry tokens.
      const req = request({ url: input, method, redirect: 'manual', credentials: 'omit', useSessionCookies: false, cache: 'no-store' })
      let settled = false
      let body: ReadableStreamDefaultController<Uint8Array> | null = null

      const settle = (fn: () => void): void => {
        if (settled) return
        settled = true
        fn()
      }
      const onAbort = (): void => {
        req.abort()
        const reason = abortError(signal!)
        settle(() => reject(reason))
        try {
          body?.error(reason)
        } catch {
          // The body was already closed.
        }
      }
      signal?.addEventListener('abort', onAbort, { once: true })
      const done = (): void => signal?.removeEventListener('abort', onAbort)

      new Headers(init.headers).forEach((value, name) => req.setHeader(name, value))

      req.on('redirect', (statusCode, _method, redirectUrl) => {
        // Not calling followRedirect() cancels the request: nothing is sent to the target.
        req.abort()
        done()
        settle(() => resolve(new Response(null, { status: statusCode, headers: { location: redirectUrl } })))
      })
      req.on('response', (res) => {
        const headers = new Headers()
        for (const [k, v] of Object.entries(res.headers)) headers.set(k, Array.isArray(v) ? v.join(', ') : v)
        const empty = NULL_BODY_STATUS.has(res.statusCode) || method === 'HEAD'
        const stream = empty
          ? null
          : new ReadableStream<Uint8Array>({
              start(controller) {
                body = controller
                // After a cancel the stream is closed and these would throw; nobody reads any more.
                const quietly = (fn: () => void): void => {
                  try {
                    fn()
                  } catch {
                    // closed or cancelled
                  }
                }
                res.on('data', (chunk) => quietly(() => controller.enqueue(new Uint8Array(chunk))))
                res.on('end', () => {
                  done()
                  quietly(() => controller.close())
                })
                res.on('error', (e) => quietly(() => controller.error(e)))
                res.on('aborted', () =>
                  quietly(() => controller.error(new Error('The connection was closed before the response was complete.')))
                )
              },
              // The reader stopped (a body past its size limit): stop downloading it.
              cancel() {
                done()
                req.abort()
              }
            })
        if (empty) done()
        settle(() => resolve(new Response(stream, { status: res.statusCode, statusText: res.statusMessage, headers })))
      })
      req.on('error', (e) => {
        done()
        settle(() => reject(e))
        try {
          body?.error(e)
        } catch {
          // The body was already closed.
        }
      })
      req.end(typeof init.body === 'string' ? init.body : undefined)
    })
}
