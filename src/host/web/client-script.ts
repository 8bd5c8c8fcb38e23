import { CHANNELS, EVENTS, ipcEvent } from '../../shared/ipc/names'

/**
 * window.api for the renderer in a browser tab, where no preload exists. The server sends it
 * as /callsight-api.js, a classic script that runs before the renderer's module. It has the
 * preload's shape and rules exactly (src/preload/index.ts): `invoke(channel, request)` for
 * contract channels only, resolving to the router's Result; `on(event, listener)` for
 * contract events only, returning an unsubscribe function; the object frozen and fixed on
 * window. Calls are same-origin POSTs (the session cookie rides along; the page never sees
 * it), events arrive over one WebSocket.
 */

/** The parts of a browser window the client uses; structural, so this file needs no DOM types. */
export interface TabWindow {
  location: { origin: string }
  fetch(url: string, init: TabFetchInit): Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>
  WebSocket: new (url: string) => { addEventListener(type: 'message', fn: (message: { data: unknown }) => void): void }
  setTimeout(fn: () => void, ms: number): unknown
}
export interface TabFetchInit {
  method: 'POST'
  headers: Record<string, string>
  body: string
  credentials: 'same-origin'
  cache: 'no-store'
}
export interface ClientConfig {
  channels: readonly string[]
  /** The transport's event channel (ipcEvent(name)) → the event's name. */
  events: Record<string, string>
}

/**
 * Serialized with Function#toString into the script the tab runs: it must use nothing but its
 * parameters and the language's globals (no imports, no helpers from this module).
 */
export function installApi(win: TabWindow, cfg: ClientConfig): void {
  const channels = new Set(cfg.channels)
  const eventNames = new Set(Object.values(cfg.events))
  const listeners = new Map<string, Set<(payload: unknown) => void>>()

  const dispatch = (data: unknown): void => {
    let message: { channel?: unknown; payload?: unknown }
    try {
      message = JSON.parse(String(data)) as { channel?: unknown; payload?: unknown }
    } catch {
      return
    }
    const name = typeof message.channel === 'string' ? cfg.events[message.channel] : undefined
    if (name === undefined) return
    for (const listener of [...(listeners.get(name) ?? [])]) {
      try {
        listener(message.payload)
      } catch (e) {
        // Like an event handler's error in the page: reported, and the other listeners still run.
        win.setTimeout(() => {
          throw e
        }, 0)
      }
    }
  }

  const api = {
    invoke(channel: string, request: unknown): Promise<unknown> {
      if (!channels.has(channel)) return Promise.reject(new Error(`Unknown channel ${String(channel)}`))
      return win
        .fetch(`/invoke/${encodeURIComponent(channel)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(request ?? {}),
          credentials: 'same-origin',
          cache: 'no-store'
        })
        .then((res) => {
          if (!res.ok) throw new Error(`Callsight refused ${channel} (HTTP ${res.status}). Open the address \`callsight serve\` printed.`)
          return res.json()
        })
    },
    on(event: string, listener: (payload: unknown) => void): () => void {
      if (!eventNames.has(event) || typeof listener !== 'function') throw new Error(`Unknown event ${String(event)}`)
      let set = listeners.get(event)
      if (!set) listeners.set(event, (set = new Set()))
      const subscribed = set
      const wrapped = (payload: unknown): void => listener(payload)
      subscribed.add(wrapped)
      return () => {
        subscribed.delete(wrapped)
      }
    }
  }

  Object.defineProperty(win, 'api', { value: Object.freeze(api), enumerable: true, configurable: false, writable: false })
  const socket = new win.WebSocket(`${win.location.origin.replace(/^http/, 'ws')}/events`)
  socket.addEventListener('message', (message) => dispatch(message.data))
}

export function clientConfig(): ClientConfig {
  return { channels: [...CHANNELS], events: Object.fromEntries(EVENTS.map((e) => [ipcEvent(e), e])) }
}

/** The text of /callsight-api.js. */
export function clientScript(cfg: ClientConfig = clientConfig()): string {
  return `'use strict';\n(${installApi.toString()})(window, ${JSON.stringify(cfg)});\n`
}
