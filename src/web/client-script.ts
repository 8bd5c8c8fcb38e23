import { CHANNELS, EVENTS, ipcEvent } from '../shared/ipc/names'
import { TOKEN_HEADER, WS_PROTOCOL, WS_TOKEN_PREFIX } from './gate'

/**
 * window.api for the renderer in a browser tab, where no preload exists. The server sends it
 * as /callsight-api.js, a classic script that runs before the renderer's module. It has the
 * preload's shape and rules exactly (src/preload/index.ts): `invoke(channel, request)` for
 * contract channels only, resolving to the router's Result; `on(event, listener)` for
 * contract events only, returning an unsubscribe function; the object frozen and fixed on
 * window. Calls are same-origin POSTs (the session cookie rides along; the page never sees
 * it), events arrive over one WebSocket. Both carry the page token (./gate.ts), which the
 * exchange page left in this origin's localStorage: a header on the POSTs, a subprotocol on
 * the socket. This script itself holds no secret: the cookie alone can fetch it.
 */

/** localStorage's key for the page token, and the exchange page's <meta> name for it. */
export const TOKEN_STORAGE_KEY = 'callsight-token'
export const TOKEN_META = 'callsight-token'

/** The parts of a browser window the client uses; structural, so this file needs no DOM types. */
export interface TabWindow {
  location: { origin: string }
  localStorage: { getItem(key: string): string | null }
  fetch(url: string, init: TabFetchInit): Promise<{ ok: boolean; status: number; json(): Promise<unknown> }>
  WebSocket: new (url: string, protocols: string[]) => { addEventListener(type: 'message', fn: (message: { data: unknown }) => void): void }
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
  tokenStorageKey: string
  tokenHeader: string
  wsProtocol: string
  wsTokenPrefix: string
}

/**
 * Serialized with Function#toString into the script the tab runs: it must use nothing but its
 * parameters and the language's globals (no imports, no helpers from this module).
 */
export function installApi(win: TabWindow, cfg: ClientConfig): void {
  const channels = new Set(cfg.channels)
  const eventNames = new Set(Object.values(cfg.events))
  const listeners = new Map<string, Set<(payload: unknown) => void>>()
  // Read at each use: a newer exchange in another tab of this origin replaces it.
  const token = (): string => {
    try {
      const t = win.localStorage.getItem(cfg.tokenStorageKey)
      // base64url only: anything else could not be a subprotocol name, nor ours.
      return t !== null && /^[\w-]+$/.test(t) ? t : ''
    } catch {
      return ''
    }
  }

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
          headers: { 'content-type': 'application/json', [cfg.tokenHeader]: token() },
          body: JSON.stringify(request ?? {}),
          credentials: 'same-origin',
          cache: 'no-store'
        })
        .then((res) => {
          if (!res.ok)
            throw new Error(
              `Callsight refused ${channel} (HTTP ${res.status}). Press Enter where \`callsight serve\` runs and open the new address it prints.`
            )
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
  const t = token()
  const protocols = t === '' ? [cfg.wsProtocol] : [cfg.wsProtocol, cfg.wsTokenPrefix + t]
  const socket = new win.WebSocket(`${win.location.origin.replace(/^http/, 'ws')}/events`, protocols)
  socket.addEventListener('message', (message) => dispatch(message.data))
}

export function clientConfig(): ClientConfig {
  return {
    channels: [...CHANNELS],
    events: Object.fromEntries(EVENTS.map((e) => [ipcEvent(e), e])),
    tokenStorageKey: TOKEN_STORAGE_KEY,
    tokenHeader: TOKEN_HEADER,
    wsProtocol: WS_PROTOCOL,
    wsTokenPrefix: WS_TOKEN_PREFIX
  }
}

/** The text of /callsight-api.js. */
export function clientScript(cfg: ClientConfig = clientConfig()): string {
  return `'use strict';\n(${installApi.toString()})(window, ${JSON.stringify(cfg)});\n`
}

/**
 * The text of /callsight-exchange.js, the exchange page's one script (the CSP allows no inline
 * script): it moves the page token from the page's <meta> into this origin's localStorage,
 * which pages on other ports cannot read, before the page's refresh moves on to /.
 */
export function exchangeScript(): string {
  const meta = JSON.stringify(`meta[name="${TOKEN_META}"]`)
  const key = JSON.stringify(TOKEN_STORAGE_KEY)
  return `'use strict';\n(function () {\n  var m = document.querySelector(${meta});\n  if (m) localStorage.setItem(${key}, m.content);\n})();\n`
}
