import type { ChannelName } from '../../src/shared/ipc/names'
import { ipcChannel } from '../../src/shared/ipc/names'
import type { Request, Response } from '../../src/shared/ipc/contract'
import type { AppErrorInfo, Result } from '../../src/shared/errors'
import type { Handlers } from '../../src/core/app/host-ports'
import { bindRouter, type IpcEventLike, type IpcMainLike } from '../../src/host/ipc/router'

/**
 * Calls the controller the way the renderer does: through the app's own router (bindRouter:
 * sender check, request schema, reply schema, errors as Results), bound on an in-memory
 * ipcMain. A refused call rejects with a RouterFailure carrying the AppErrorInfo the
 * renderer would get.
 */
export class RouterFailure extends Error {
  readonly code: AppErrorInfo['code']
  readonly hint: string | undefined
  constructor(readonly info: AppErrorInfo) {
    super(info.message)
    this.code = info.code
    this.hint = info.hint
  }
}

const APP_URL = 'file:///opt/callsight/resources/app.asar/out/renderer/index.html'

export interface RouterClient {
  call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>>
  /** Every reply that crossed, as JSON (what the renderer received). */
  replies: string[]
  unbind(): void
}

export function routerClient(handlers: Handlers): RouterClient {
  const bound = new Map<string, (event: IpcEventLike, payload: unknown) => unknown>()
  const ipcMain: IpcMainLike = {
    handle: (channel, fn) => void bound.set(channel, fn),
    removeHandler: (channel) => void bound.delete(channel)
  }
  const unbind = bindRouter(ipcMain, handlers, { isTrustedOrigin: (url) => url === APP_URL })
  const event: IpcEventLike = { senderFrame: { url: APP_URL, parent: null }, sender: { id: 1 } }
  const replies: string[] = []
  return {
    replies,
    unbind,
    async call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
      const fn = bound.get(ipcChannel(channel))
      if (!fn) throw new Error(`nothing bound on ${channel}`)
      const result = (await fn(event, request)) as Result<Response<C>>
      replies.push(JSON.stringify(result))
      if (!result.ok) throw new RouterFailure(result.error)
      return result.value
    }
  }
}

/** The RouterFailure a call ends in (fails the test when it succeeds or fails otherwise). */
export async function refusal(p: Promise<unknown>): Promise<RouterFailure> {
  try {
    await p
  } catch (e) {
    if (e instanceof RouterFailure) return e
    throw e
  }
  throw new Error('expected a failure')
}
