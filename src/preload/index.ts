import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import { CHANNELS, EVENTS, ipcChannel, ipcEvent, type ChannelName, type EventName } from '../shared/ipc/names'

// window.api is built from the contract's channel list and nothing else: the page never
// gets ipcRenderer, and can name only the channels and events the contract declares.
const channels = new Set<string>(CHANNELS)
const events = new Set<string>(EVENTS)

const api = {
  invoke(channel: ChannelName, request: unknown): Promise<unknown> {
    if (!channels.has(channel)) return Promise.reject(new Error(`Unknown channel ${String(channel)}`))
    return ipcRenderer.invoke(ipcChannel(channel), request ?? {})
  },
  on(event: EventName, listener: (payload: unknown) => void): () => void {
    if (!events.has(event) || typeof listener !== 'function') throw new Error(`Unknown event ${String(event)}`)
    const wrapped = (_e: IpcRendererEvent, payload: unknown): void => listener(payload)
    ipcRenderer.on(ipcEvent(event), wrapped)
    return () => ipcRenderer.removeListener(ipcEvent(event), wrapped)
  }
}

contextBridge.exposeInMainWorld('api', Object.freeze(api))
