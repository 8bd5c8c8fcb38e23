import type { AppErrorInfo } from '../../shared/errors'
import type { EventPayload, Request, Response } from '../../shared/ipc/contract'
import type { ChannelName, EventName } from '../../shared/ipc/names'

/** An app error that came back from main, carried as a thrown value inside the renderer only. */
export class ApiError extends Error {
  constructor(readonly info: AppErrorInfo) {
    super(info.message)
    this.name = 'ApiError'
  }
}

/** Calls a channel and returns its value, or throws an ApiError carrying the error info. */
export async function call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
  const result = await window.api.invoke(channel, request)
  if (!result.ok) throw new ApiError(result.error)
  return result.value
}

export function listen<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): () => void {
  return window.api.on(event, listener)
}
