import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { ipcEvent, type EVENTS } from '../../../src/shared/ipc/names'
import { clientScript, exchangeScript } from '../../../src/web/client-script'

// The served text itself, run in a fresh JavaScript realm with a fake window: it must stand
// alone (no imports, no helpers of the module) and give the page the preload's window.api.

interface Api {
  invoke(channel: string, request?: unknown): Promise<unknown>
  on(event: string, listener: (payload: unknown) => void): () => void
}

const PAGE_TOKEN = 'p'.repeat(43)

function loadClient(
  reply: { ok: boolean; status: number; body?: unknown } = { ok: true, status: 200, body: { ok: true, value: 1 } },
  storage: Record<string, string> = { 'callsight-token': PAGE_TOKEN }
) {
  const requests: Array<{ url: string; init: Record<string, unknown> }> = []
  const sockets: Array<{ url: string; protocols: unknown; emit(data: unknown): void }> = []
  const thrown: unknown[] = []
  class FakeSocket {
    private readonly listeners: Array<(m: { data: unknown }) => void> = []
    constructor(
      readonly url: string,
      protocols?: unknown
    ) {
      sockets.push({ url, protocols, emit: (data) => this.listeners.forEach((l) => l({ data })) })
    }
    addEventListener(_type: string, fn: (m: { data: unknown }) => void): void {
      this.listeners.push(fn)
    }
  }
  const window: Record<string, unknown> = {
    location: { origin: 'http://127.0.0.1:4321' },
    localStorage: { getItem: (key: string) => storage[key] ?? null },
    fetch: async (url: string, init: Record<string, unknown>) => {
      requests.push({ url, init })
      return { ok: reply.ok, status: reply.status, json: async () => reply.body }
    },
    WebSocket: FakeSocket,
    setTimeout: (fn: () => void) => {
      try {
        fn()
      } catch (e) {
        thrown.push(e)
      }
    }
  }
  runInNewContext(clientScript(), { window })
  return { api: window['api'] as Api, window, requests, sockets, thrown }
}

const message = (event: (typeof EVENTS)[number], payload: unknown): string => JSON.stringify({ channel: ipcEvent(event), payload })

describe('the browser tab client (/callsight-api.js)', () => {
  it('installs a frozen, fixed window.api with exactly the preload keys', () => {
    const { api, window } = loadClient()
    expect(Object.keys(api).sort()).toEqual(['invoke', 'on'])
    expect(Object.isFrozen(api)).toBe(true)
    expect(Object.getOwnPropertyDescriptor(window, 'api')).toMatchObject({ writable: false, configurable: false })
    expect(() => Object.defineProperty(window, 'api', { value: {} })).toThrow()
  })

  it('posts contract calls as same-origin JSON and resolves to the router Result', async () => {
    const { api, requests } = loadClient({ ok: true, status: 200, body: { ok: true, value: 'v' } })
    await expect(api.invoke('search.page', { offset: 0 })).resolves.toEqual({ ok: true, value: 'v' })
    await api.invoke('app.info')
    expect(requests).toEqual([
      {
        url: '/invoke/search.page',
        init: {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-callsight-token': PAGE_TOKEN },
          body: '{"offset":0}',
          credentials: 'same-origin',
          cache: 'no-store'
        }
      },
      expect.objectContaining({ url: '/invoke/app.info', init: expect.objectContaining({ body: '{}' }) })
    ])
  })

  it('refuses channels outside the contract without a request, and says when the server refused', async () => {
    const refused = loadClient({ ok: false, status: 403 })
    await expect(refused.api.invoke('no.such.channel')).rejects.toThrow('Unknown channel no.such.channel')
    expect(refused.requests).toHaveLength(0)
    await expect(refused.api.invoke('app.info')).rejects.toThrow('Callsight refused app.info (HTTP 403)')
  })

  it('opens one event socket on its own origin and hands contract events to listeners until they unsubscribe', () => {
    const { api, sockets } = loadClient()
    expect(sockets.map((s) => [s.url, s.protocols])).toEqual([
      ['ws://127.0.0.1:4321/events', ['callsight', `callsight-token.${PAGE_TOKEN}`]]
    ])
    const seen: unknown[] = []
    const stop = api.on('theme.changed', (p) => seen.push(p))
    api.on('session.changed', () => seen.push('wrong event'))
    const socket = sockets[0]!
    socket.emit(message('theme.changed', { dark: true }))
    socket.emit('not json')
    socket.emit(JSON.stringify({ channel: 'callsight-event:no.such', payload: 1 }))
    stop()
    socket.emit(message('theme.changed', { dark: false }))
    expect(seen).toEqual([{ dark: true }])
  })

  it('refuses unknown events, and keeps delivering when one listener throws', () => {
    const { api, sockets, thrown } = loadClient()
    expect(() => api.on('no.such.event', () => undefined)).toThrow('Unknown event no.such.event')
    expect(() => api.on('theme.changed', 'not a function' as never)).toThrow('Unknown event theme.changed')
    const seen: unknown[] = []
    api.on('theme.changed', () => {
      throw new Error('listener bug')
    })
    api.on('theme.changed', (p) => seen.push(p))
    sockets[0]!.emit(message('theme.changed', { dark: true }))
    expect(seen).toEqual([{ dark: true }])
    expect(thrown).toEqual([new Error('listener bug')])
  })

  it('sends the page token the exchange page stored, and nothing it could not be when there is none', async () => {
    const without = loadClient(undefined, {})
    await without.api.invoke('app.info')
    expect(without.requests[0]?.init['headers']).toEqual({ 'content-type': 'application/json', 'x-callsight-token': '' })
    expect(without.sockets[0]?.protocols).toEqual(['callsight'])
    // A stored value that cannot be a subprotocol name would make the WebSocket constructor throw.
    const junk = loadClient(undefined, { 'callsight-token': 'a b,c' })
    expect(junk.sockets[0]?.protocols).toEqual(['callsight'])
  })

  it('the exchange script moves the token from the page into localStorage', () => {
    const stored: Record<string, string> = {}
    const document = { querySelector: (sel: string) => (sel === 'meta[name="callsight-token"]' ? { content: PAGE_TOKEN } : null) }
    const localStorage = { setItem: (k: string, v: string) => void (stored[k] = v) }
    runInNewContext(exchangeScript(), { document, localStorage })
    expect(stored).toEqual({ 'callsight-token': PAGE_TOKEN })
    // The script the cookie alone can fetch holds no token.
    expect(clientScript()).not.toContain(PAGE_TOKEN)
  })
})
