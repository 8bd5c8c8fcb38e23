import { CallsightError, cancelled } from '../errors'
import type { Clock, FetchLike } from '../platform'
import { MESSAGES } from './error-map'
import { isTransientNetworkError } from './retry'

export interface RawResponse {
  status: number
  headers: Headers
  body: string
}

/** A failed attempt, and whether the retry policy may try again. */
export class AttemptError extends Error {
  constructor(
    readonly error: CallsightError,
    readonly retryable: boolean
  ) {
    super(error.message)
  }
}

/**
 * One HTTP exchange, body included, bounded by `timeoutMs` on the injected clock and by the
 * caller's signal. Never retries; the caller's policy decides.
 */
export async function exchange(
  fetch: FetchLike,
  clock: Clock,
  url: string,
  init: RequestInit,
  timeoutMs: number,
  signal: AbortSignal | undefined
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
    const res = await fetch(url, { ...init, signal: controller.signal })
    headersIn = true
    const body = await res.text()
    return { status: res.status, headers: res.headers, body }
  } catch (e) {
    if (signal?.aborted) throw cancelled('The request')
    if (timedOut) {
      throw new AttemptError(new CallsightError('Timeout', MESSAGES.timeout(Math.max(1, Math.ceil(timeoutMs / 1000))), { cause: e }), true)
    }
    // A body cut off after the headers is a broken connection too, and as transient.
    if (headersIn) throw new AttemptError(new CallsightError('Network', MESSAGES.brokenResponse, { cause: e }), true)
    throw new AttemptError(new CallsightError('Network', MESSAGES.network, { cause: e }), isTransientNetworkError(e))
  } finally {
    timer.abort()
    signal?.removeEventListener('abort', onAbort)
  }
}
