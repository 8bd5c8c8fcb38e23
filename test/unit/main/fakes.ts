import { CHANNELS, type ChannelName } from '../../../src/shared/ipc/names'
import { CallsightError } from '../../../src/core/errors'
import type { Handlers } from '../../../src/core/app/host-ports'
import type { IpcEventLike, IpcMainLike } from '../../../src/host/ipc/router'
import type { Logger, LogLevel } from '../../../src/core/platform'

/** An ipcMain that keeps its handlers so a test can call them as the renderer would. */
export class FakeIpcMain implements IpcMainLike {
  readonly handlers = new Map<string, (event: IpcEventLike, payload: unknown) => unknown>()
  handle(channel: string, fn: (event: IpcEventLike, payload: unknown) => unknown): void {
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`)
    this.handlers.set(channel, fn)
  }
  removeHandler(channel: string): void {
    this.handlers.delete(channel)
  }
  async invoke(channel: string, event: IpcEventLike, payload: unknown): Promise<unknown> {
    const fn = this.handlers.get(channel)
    if (!fn) throw new Error(`No handler registered for '${channel}'`)
    return await fn(event, payload)
  }
}

export const APP_URL = 'file:///opt/callsight/resources/app.asar/out/renderer/index.html'
export const isTrusted = (url: string): boolean => url === APP_URL || url.startsWith(`${APP_URL}#`)

export function mainFrame(url = APP_URL, senderId = 7): IpcEventLike {
  return { senderFrame: { url, parent: null }, sender: { id: senderId } }
}

export function subFrame(url = APP_URL): IpcEventLike {
  return { senderFrame: { url, parent: { url: APP_URL } }, sender: { id: 7 } }
}

/** Handlers that refuse everything; tests replace the channels they exercise. */
export function refusingHandlers(): Handlers {
  const entries = CHANNELS.map((c: ChannelName) => [
    c,
    async () => {
      throw new CallsightError('Internal', `${c} not used in this test`)
    }
  ])
  return Object.fromEntries(entries) as unknown as Handlers
}

export class MemoryLogger implements Logger {
  readonly lines: { level: LogLevel; message: string; fields: Record<string, unknown> | undefined }[] = []
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void {
    this.lines.push({ level, message, fields })
  }
  text(): string {
    return JSON.stringify(this.lines)
  }
}
