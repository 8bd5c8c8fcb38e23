import type { z } from 'zod'
import { CHANNELS, ipcChannel, type ChannelName } from '../../shared/ipc/names'
import { contract } from '../../shared/ipc/contract'
import type { AppErrorInfo, FieldMessage, Result } from '../../shared/errors'
import { toErrorInfo } from '../../core/errors'
import type { Logger } from '../../core/platform'
import type { Handlers as CoreHandlers } from '../../core/app/host-ports'

export type Handlers = CoreHandlers

/** The part of Electron's ipcMain the router uses, so tests and the browser mode's HTTP binding can stand in for it. */
export interface IpcMainLike {
  handle(channel: string, fn: (event: IpcEventLike, payload: unknown) => unknown): void
  removeHandler(channel: string): void
}

/** The part of IpcMainInvokeEvent the router reads. */
export interface IpcEventLike {
  senderFrame: { url: string; parent: unknown | null } | null
  sender: { id: number }
}

export interface RouterOptions {
  /** True only for the app's own renderer: the packaged file or the dev server. */
  isTrustedOrigin(url: string): boolean
  logger?: Logger
  /** A call taking this long or longer is logged (channel, time, outcome); 2 s unless told. */
  slowCallMs?: number
}

const forbidden: AppErrorInfo = {
  code: 'Forbidden',
  message: 'This request did not come from the Callsight window and was refused.'
}

const brokenReply: AppErrorInfo = {
  code: 'Internal',
  message: 'Something went wrong inside Callsight. The details are in the log.'
}

export function issuesToFields(issues: readonly z.core.$ZodIssue[]): FieldMessage[] {
  return issues.map((i) => ({ members: i.path.map(String), message: i.message }))
}

/** Why a sender is refused, or null when it is the app's main frame on a trusted origin. */
export function senderProblem(event: IpcEventLike, isTrustedOrigin: (url: string) => boolean): string | null {
  const frame = event.senderFrame
  if (frame === null) return 'the sending frame is gone'
  if (frame.parent !== null) return 'a sub-frame sent it'
  if (!isTrustedOrigin(frame.url)) return 'the origin is not the app'
  return null
}

/**
 * Binds every contract channel on ipcMain. Each call is checked (main frame, trusted
 * origin), its payload parsed with the channel's request schema, and the handler's value
 * parsed with the response schema: zod objects strip unknown keys, so nothing outside the
 * contract (a token on an account object, say) can cross to the renderer. A handler whose
 * value does not fit the contract is a bug and is reported as Internal. Nothing is thrown
 * across IPC: every reply is a Result. Returns a function that unbinds everything.
 */
export function bindRouter(ipcMain: IpcMainLike, handlers: Handlers, opts: RouterOptions): () => void {
  const log = opts.logger
  for (const channel of CHANNELS) {
    ipcMain.handle(ipcChannel(channel), (event, payload) => dispatch(channel, handlers, opts, event, payload))
  }
  log?.log('debug', 'IPC router bound', { channels: CHANNELS.length })
  return () => {
    for (const channel of CHANNELS) ipcMain.removeHandler(ipcChannel(channel))
  }
}

async function dispatch(
  channel: ChannelName,
  handlers: Handlers,
  opts: RouterOptions,
  event: IpcEventLike,
  payload: unknown
): Promise<Result<unknown>> {
  const log = opts.logger
  const problem = senderProblem(event, opts.isTrustedOrigin)
  if (problem !== null) {
    log?.log('warn', 'IPC call refused', { channel, reason: problem, origin: originOf(event.senderFrame?.url) })
    return { ok: false, error: forbidden }
  }

  const schemas = contract[channel]
  const request = schemas.request.safeParse(payload ?? {})
  if (!request.success) {
    return {
      ok: false,
      error: {
        code: 'InvalidInput',
        message: 'The request was not valid.',
        fields: issuesToFields(request.error.issues)
      }
    }
  }

  let value: unknown
  const started = performance.now()
  try {
    // The channel's handler and schema belong together; TypeScript cannot correlate them
    // through the loop variable, so the call goes through a widened signature.
    const handler = handlers[channel] as (req: unknown, ctx: { senderId: number }) => Promise<unknown>
    value = await handler(request.data, { senderId: event.sender.id })
  } catch (e) {
    const error = toErrorInfo(e)
    if (error.code === 'Internal') log?.log('error', 'IPC handler failed', { channel, error: describe(e) })
    logIfSlow(opts, channel, started, error.code)
    return { ok: false, error }
  }
  logIfSlow(opts, channel, started, 'ok')

  const reply = schemas.response.safeParse(value)
  if (!reply.success) {
    log?.log('error', 'IPC reply does not fit the contract', { channel, issues: issuesToFields(reply.error.issues) })
    return { ok: false, error: brokenReply }
  }
  return { ok: true, value: reply.data }
}

/** A call that kept the window waiting is worth a line: which, how long, how it ended (no payload). */
function logIfSlow(opts: RouterOptions, channel: ChannelName, started: number, outcome: string): void {
  const ms = Math.round(performance.now() - started)
  if (ms >= (opts.slowCallMs ?? 2_000)) opts.logger?.log('info', 'IPC call slow', { channel, ms, outcome })
}

function originOf(url: string | undefined): string {
  if (url === undefined) return '(none)'
  try {
    const u = new URL(url)
    return u.protocol === 'file:' ? 'file://' : u.origin
  } catch {
    return '(unparsable)'
  }
}

function describe(e: unknown): Record<string, unknown> {
  if (e instanceof Error) return { name: e.name, message: e.message, stack: e.stack }
  return { value: String(e) }
}
