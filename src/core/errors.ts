import type { AppErrorInfo, ErrorCode, FieldMessage } from '../shared/errors'

/**
 * The one error type core throws. It carries only what a person may read: no stack trace,
 * no response body, no token. Anything else thrown inside core is a bug and is reported as
 * Internal by toErrorInfo.
 */
export class CallsightError extends Error {
  readonly code: ErrorCode
  readonly hint: string | undefined
  readonly retryAfterSeconds: number | undefined
  readonly fields: FieldMessage[] | undefined
  readonly callType: string | undefined
  readonly knownCallTypes: string[] | undefined
  readonly status: number | undefined

  constructor(
    code: ErrorCode,
    message: string,
    extra: {
      hint?: string
      retryAfterSeconds?: number
      fields?: FieldMessage[]
      callType?: string
      knownCallTypes?: string[]
      status?: number
      cause?: unknown
    } = {}
  ) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause })
    this.name = 'CallsightError'
    this.code = code
    this.hint = extra.hint
    this.retryAfterSeconds = extra.retryAfterSeconds
    this.fields = extra.fields
    this.callType = extra.callType
    this.knownCallTypes = extra.knownCallTypes
    this.status = extra.status
  }

  toInfo(): AppErrorInfo {
    const info: AppErrorInfo = { code: this.code, message: this.message }
    if (this.hint !== undefined) info.hint = this.hint
    if (this.retryAfterSeconds !== undefined) info.retryAfterSeconds = this.retryAfterSeconds
    if (this.fields !== undefined) info.fields = this.fields
    if (this.callType !== undefined) info.callType = this.callType
    if (this.knownCallTypes !== undefined) info.knownCallTypes = this.knownCallTypes
    if (this.status !== undefined) info.status = this.status
    return info
  }
}

export const isCallsightError = (e: unknown): e is CallsightError => e instanceof CallsightError

export function isAbortError(e: unknown): boolean {
  return (
    (e instanceof CallsightError && e.code === 'Cancelled') ||
    (typeof e === 'object' && e !== null && 'name' in e && e.name === 'AbortError')
  )
}

export const cancelled = (what = 'The operation'): CallsightError => new CallsightError('Cancelled', `${what} was cancelled.`)

/** Any thrown value as something safe to show. Unknown errors never leak their message. */
export function toErrorInfo(e: unknown): AppErrorInfo {
  if (e instanceof CallsightError) return e.toInfo()
  if (isAbortError(e)) return cancelled().toInfo()
  return { code: 'Internal', message: 'Something went wrong inside Callsight. The details are in the log.' }
}
