import { z } from 'zod'

/**
 * The one error taxonomy every layer speaks. Core raises these, IPC carries them as data
 * (ipcRenderer.invoke drops custom error properties), the renderer and the CLI turn the
 * code into words a person can act on. Nothing here carries a stack trace or a body.
 */
export const ERROR_CODES = [
  // From the service, as the spec defines them.
  'InvalidCredentials',
  'ReloginRequired',
  'IpNotAllowed',
  'RateLimited',
  'Validation',
  'UnknownCallType',
  'Unauthorized',
  'ServerError',
  'Network',
  'Timeout',
  'MalformedResponse',
  // From the application itself.
  'Cancelled',
  'InvalidInput',
  'NotSignedIn',
  'NotFound',
  'DenseSecond',
  'DatabaseTooNew',
  'Storage',
  'Forbidden',
  // The team cache was asked to search, and its search is off (an operator's choice).
  'TeamSearchOff',
  'Internal'
] as const

export const ErrorCode = z.enum(ERROR_CODES)
export type ErrorCode = z.infer<typeof ErrorCode>

export const FieldMessage = z.object({
  /** The request members the message is about, e.g. ["take"]. Empty when unnamed. */
  members: z.array(z.string()),
  message: z.string()
})
export type FieldMessage = z.infer<typeof FieldMessage>

export const AppErrorInfo = z.object({
  code: ErrorCode,
  /** One sentence for a person, already free of secrets and raw bodies. */
  message: z.string(),
  /** What to do about it, when there is something to do. */
  hint: z.string().optional(),
  /** RateLimited: seconds to wait. */
  retryAfterSeconds: z.number().nonnegative().optional(),
  /** Validation / InvalidInput: per-field messages. */
  fields: z.array(FieldMessage).optional(),
  /** UnknownCallType: the name the service did not know. */
  callType: z.string().optional(),
  /** UnknownCallType refused locally: the catalog Values this cache knows, to pick from. */
  knownCallTypes: z.array(z.string()).max(300).optional(),
  /** HTTP status when the error came from the service. */
  status: z.number().int().optional()
})
export type AppErrorInfo = z.infer<typeof AppErrorInfo>

/** Every IPC reply. Never a thrown error across the boundary. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: AppErrorInfo }

export function resultSchema<T extends z.ZodType>(value: T) {
  return z.discriminatedUnion('ok', [z.object({ ok: z.literal(true), value }), z.object({ ok: z.literal(false), error: AppErrorInfo })])
}
