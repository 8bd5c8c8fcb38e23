import { CallsightError, cancelled } from '../errors'
import type { Clock, FetchLike } from '../platform'
import { MESSAGES } from './error-map'
import { isConnectionRefused, isTransientNetworkError } from './retry'

export interface RawResponse {
  status: number
  headers: Headers
  body: string
}

/**
 * How much of an answer is read. A 2xx body past `okBytes` fails the attempt (not retried:
 * the same request would get the same answer); an error body is only read for its message,
 * so it is cut at ERROR_BODY_BYTES and the rest never downloaded.
 */
export interface BodyLimit {
  okBytes: number
}

export const ERROR_BODY_BYTES = 64 * 1024

/**
 * A failed attempt, and whether the retry policy may try again. `refused`: nothing listens at
 * the address; worth retrying in a sync, not while a person waits at the sign-in form.
 */
export class AttemptError extends Error {
  constructor(
    readonly error: CallsightError,
    readonly retryable: boolean,
    readonly refused = false
  ) {
    super(error.message)
  }
}

/**
 * One HTTP exchange, body included, bounded by `timeoutMs` on the injected clock, by the
 * caller's signal and by `limit`. Never retries; the caller's policy decides.
 *
 * Redirects are never followed (`redirect: 'manual'`): fetch re-sends the body of a 307/308
 * to wherever the Location points, and the token endpoint's body is the user's password. A
 * 3xx fails the attempt with an error that names the target, so the user can fix the address.
 */
export async function exchange(
  fetch: FetchLike,
  clock: Clock,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  limit: BodyLimit
): Promise<RawResponse> {
  if (signal?.aborted) throw cancelled('The request')
  const controller = new AbortController()
  const timer = new AbortController()
  let timedOut = false
  const onAbort = (): void => controller.abort()
  signal?.addEventListener('abort', onAbort, { once: true })
  clock.sleep(timeoutMs, timer.signal).then(
    () => {
      timedOut = true
      controller.abort()
    },
    () => undefined
  )
  let headersIn = false
  try {
    const res = await fetch(url, { ...init, redirect: 'manual', signal: controller.signal })
    headersIn = true
    if (res.status >= 300 && res.status < 400) {
      await discard(res)
      throw new AttemptError(redirected(res.status, res.headers.get('location'), url), false)
    }
    const ok = res.status >= 200 && res.status < 300
    const body = await readBody(res, ok ? limit.okBytes : ERROR_BODY_BYTES, ok)
    return { status: res.status, headers: res.headers, body }
  } catch (e) {
    if (e instanceof AttemptError) throw e
    if (signal?.aborted) throw cancelled('The request')
    if (timedOut) {
      throw new AttemptError(new CallsightError('Timeout', MESSAGES.timeout(Math.max(1, Math.ceil(timeoutMs / 1000))), { cause: e }), true)
    }
    // A body cut off after the headers is a broken connection too, and as transient.
    if (headersIn) throw new AttemptError(new CallsightError('Network', MESSAGES.brokenResponse, { cause: e }), true)
    if (isConnectionRefused(e)) throw new AttemptError(new CallsightError('Network', MESSAGES.refused, { cause: e }), true, true)
    throw new AttemptError(new CallsightError('Network', MESSAGES.network, { cause: e }), isTransientNetworkError(e))
  } finally {
    timer.abort()
    signal?.removeEventListener('abort', onAbort)
  }
}

/** Stops a body we will not read, so its bytes are not downloaded; errors do not matter here. */
async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined)
}

/**
 * The body as text, reading at most `maxBytes`: the declared Content-Length is checked
 * before anything is read, then the stream is counted as it arrives (a compressed or chunked
 * answer declares nothing useful). Past the limit, a body that matters (`strict`) fails the
 * attempt; an error body is cut there, since only its first message is ever shown.
 */
async function readBody(res: Response, maxBytes: number, strict: boolean): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? NaN)
  if (strict && declared > maxBytes) {
    await discard(res)
    throw tooLarge(maxBytes)
  }
  if (!res.body) return ''
  const reader = res.body.getReader()
  const chunks: Uint8Array[] = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (total + value.byteLength > maxBytes) {
      await reader.cancel().catch(() => undefined)
      if (strict) throw tooLarge(maxBytes)
      chunks.push(value.subarray(0, maxBytes - total))
      total = maxBytes
      break
    }
    chunks.push(value)
    total += value.byteLength
  }
  // TextDecoder drops a leading BOM and replaces broken sequences, as Response.text() does.
  return new TextDecoder().decode(Buffer.concat(chunks, total))
}

function tooLarge(maxBytes: number): AttemptError {
  return new AttemptError(new CallsightError('MalformedResponse', MESSAGES.tooLarge(maxBytes)), false)
}

/** The redirect's target as a person can check it: scheme, host and path, one short line. */
export function describeTarget(location: string | null, base: string): string {
  if (location === null || location.trim() === '') return 'an address it did not name'
  let shown: string
  try {
    const u = new URL(location, base)
    shown = `${u.protocol}//${u.host}${u.pathname}`
  } catch {
    shown = location
  }
  shown = shown.replace(/[\u0000-\u001f\u007f-\u009f]/g, '')
  return shown.length > 120 ? `${shown.slice(0, 117)}...` : shown
}

function redirected(status: number, location: string | null, url: string): CallsightError {
  return new CallsightError('ServerError', MESSAGES.redirected(status, describeTarget(location, url)), {
    status,
    hint: MESSAGES.redirectedHint
  })
}
