import { ipcEvent, type EventName } from '../../shared/ipc/names'
import { events, type EventPayload } from '../../shared/ipc/contract'
import type { Logger } from '../../core/platform'
import type { EventSink } from '../../core/app/host-ports'

export type { EventSink }

/** A webContents, or anything that can stand in for one (the browser mode's WebSockets). */
export interface EventTargetLike {
  isDestroyed(): boolean
  send(channel: string, payload: unknown): void
}

/**
 * Events leave main only in the contract's shape: a payload that does not fit is a bug, is
 * logged and dropped rather than crashing the process. With no window open (yet, or any
 * more) events are dropped; the renderer asks for current state when it starts.
 */
export function createEventSink(target: () => EventTargetLike | null | undefined, logger?: Logger): EventSink {
  return {
    emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
      const parsed = events[event].safeParse(payload)
      if (!parsed.success) {
        logger?.log('error', 'Event does not fit the contract; dropped', { event, issues: parsed.error.issues.length })
        return
      }
      const t = target()
      if (!t || t.isDestroyed()) return
      t.send(ipcEvent(event), parsed.data)
    }
  }
}
