import { describe, expect, it } from 'vitest'
import { CHANNELS, ipcChannel } from '../../../src/shared/ipc/names'
import type { Result } from '../../../src/shared/errors'
import type { SessionState } from '../../../src/shared/domain'
import { CallsightError } from '../../../src/core/errors'
import { bindRouter } from '../../../src/host/ipc/router'
import { APP_URL, FakeIpcMain, isTrusted, mainFrame, MemoryLogger, refusingHandlers, subFrame } from '../main/fakes'

const signedIn: SessionState = {
  status: 'signedIn',
  account: {
    id: 'acc-1',
    label: 'Acme',
    baseUrl: 'https://calls.example.com',
    username: 'ayse',
    zone: 'Europe/Istanbul',
    rateLimit: { requests: 60, perSeconds: 60 },
    demo: false
  },
  tokensPersisted: true,
  notice: null,
  noticeCode: null
}

function setup() {
  const ipc = new FakeIpcMain()
  const handlers = refusingHandlers()
  const logger = new MemoryLogger()
  const unbind = bindRouter(ipc, handlers, { isTrustedOrigin: isTrusted, logger })
  return { ipc, handlers, logger, unbind }
}

describe('IPC router', () => {
  it('binds every contract channel under its namespaced name, and unbinds them all', () => {
    const { ipc, unbind } = setup()
    expect([...ipc.handlers.keys()].sort()).toEqual(CHANNELS.map(ipcChannel).sort())
    unbind()
    expect(ipc.handlers.size).toBe(0)
  })

  it('answers the main frame of the app with the handler value and the sender id', async () => {
    const { ipc, handlers } = setup()
    let seen: { request: unknown; senderId: number } | null = null
    handlers['calls.get'] = async (request, ctx) => {
      seen = { request, senderId: ctx.senderId }
      return null
    }
    const reply = await ipc.invoke(ipcChannel('calls.get'), mainFrame(APP_URL, 42), { callId: 'c-1' })
    expect(reply).toEqual({ ok: true, value: null })
    expect(seen).toEqual({ request: { callId: 'c-1' }, senderId: 42 })
  })

  it('hands the handler the parsed request, defaults applied', async () => {
    const { ipc, handlers } = setup()
    let forget: boolean | null = null
    handlers['session.signOut'] = async (request) => {
      forget = request.forget
      return { status: 'signedOut', account: null, tokensPersisted: false, notice: null, noticeCode: null }
    }
    await ipc.invoke(ipcChannel('session.signOut'), mainFrame(), {})
    expect(forget).toBe(false)
  })

  it.each([
    ['a foreign origin', mainFrame('https://evil.example.com/')],
    ['another local file', mainFrame('file:///home/user/Downloads/page.html')],
    ['a sub-frame of the app', subFrame()],
    ['a frame that is gone', { senderFrame: null, sender: { id: 7 } }]
  ])('refuses %s with Forbidden, without calling the handler', async (_what, event) => {
    const { ipc, handlers, logger } = setup()
    let called = false
    handlers['app.info'] = async () => {
      called = true
      return { version: '1', electron: null, platform: 'linux', locale: 'en', systemZone: 'UTC', darkMode: false }
    }
    const reply = (await ipc.invoke(ipcChannel('app.info'), event, {})) as Result<unknown>
    expect(reply.ok).toBe(false)
    if (!reply.ok) expect(reply.error.code).toBe('Forbidden')
    expect(called).toBe(false)
    expect(logger.lines.some((l) => l.level === 'warn' && l.message === 'IPC call refused')).toBe(true)
  })

  it('rejects an invalid payload as InvalidInput naming the fields, never echoing the password', async () => {
    const { ipc, handlers } = setup()
    let called = false
    handlers['session.signIn'] = async () => {
      called = true
      return signedIn
    }
    const reply = (await ipc.invoke(ipcChannel('session.signIn'), mainFrame(), {
      baseUrl: 'http://calls.example.com',
      username: 'ayse',
      password: 'hunter2-Secret!'
    })) as Result<unknown>
    expect(called).toBe(false)
    expect(reply.ok).toBe(false)
    if (reply.ok) return
    expect(reply.error.code).toBe('InvalidInput')
    expect(reply.error.fields?.map((f) => f.members)).toEqual([['baseUrl']])
    expect(JSON.stringify(reply)).not.toContain('hunter2')
  })

  it.each([
    ['not an object', 'app.info', 'hello'],
    ['an unknown key on a strict request', 'calls.get', { callId: 'x', extra: 1 }],
    ['a number out of range', 'search.page', { query: {}, offset: -1, limit: 10 }]
  ] as const)('rejects %s', async (_what, channel, payload) => {
    const { ipc } = setup()
    const reply = (await ipc.invoke(ipcChannel(channel), mainFrame(), payload)) as Result<unknown>
    expect(reply.ok).toBe(false)
    if (!reply.ok) {
      expect(reply.error.code).toBe('InvalidInput')
      expect(reply.error.fields?.length).toBeGreaterThan(0)
    }
  })

  it('carries a CallsightError as data, without a stack or its cause', async () => {
    const { ipc, handlers } = setup()
    handlers['session.signIn'] = async () => {
      throw new CallsightError('RateLimited', 'Too many requests.', { retryAfterSeconds: 30, status: 429, cause: new Error('raw body') })
    }
    const reply = await ipc.invoke(ipcChannel('session.signIn'), mainFrame(), {
      baseUrl: 'https://calls.example.com',
      username: 'ayse',
      password: 'pw'
    })
    expect(reply).toEqual({
      ok: false,
      error: { code: 'RateLimited', message: 'Too many requests.', retryAfterSeconds: 30, status: 429 }
    })
    expect(JSON.stringify(reply)).not.toMatch(/stack|raw body|at .*\.ts/)
  })

  it('reports an unexpected error as Internal, hiding its message from the renderer but logging it', async () => {
    const { ipc, handlers, logger } = setup()
    handlers['cache.info'] = async () => {
      throw new Error('SQLITE_CORRUPT at /home/ayse/secret/path')
    }
    const reply = (await ipc.invoke(ipcChannel('cache.info'), mainFrame(), {})) as Result<unknown>
    expect(reply.ok).toBe(false)
    if (!reply.ok) expect(reply.error.code).toBe('Internal')
    expect(JSON.stringify(reply)).not.toContain('SQLITE_CORRUPT')
    expect(logger.text()).toContain('SQLITE_CORRUPT')
  })

  it('turns an AbortError into Cancelled', async () => {
    const { ipc, handlers } = setup()
    handlers['cache.clear'] = async () => {
      throw new DOMException('aborted', 'AbortError')
    }
    const reply = (await ipc.invoke(ipcChannel('cache.clear'), mainFrame(), {})) as Result<unknown>
    expect(reply.ok === false && reply.error.code).toBe('Cancelled')
  })

  it('never lets a token reach the renderer: fields outside the contract are stripped from replies', async () => {
    const { ipc, handlers } = setup()
    const leaky = {
      ...signedIn,
      accessToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJheXNlIn0.sig',
      refreshToken: 'r-123456',
      account: { ...signedIn.account, password: 'hunter2', refresh_token: 'r-123456' }
    }
    handlers['session.signIn'] = async () => leaky as SessionState
    handlers['session.get'] = async () => leaky as SessionState
    const viaSignIn = await ipc.invoke(ipcChannel('session.signIn'), mainFrame(), {
      baseUrl: 'https://calls.example.com',
      username: 'ayse',
      password: 'hunter2'
    })
    const viaGet = await ipc.invoke(ipcChannel('session.get'), mainFrame(), {})
    for (const reply of [viaSignIn, viaGet]) {
      expect(reply).toEqual({ ok: true, value: signedIn })
      expect(JSON.stringify(reply)).not.toMatch(/eyJ|r-123456|hunter2|[Tt]oken"/)
    }
  })

  it('logs a slow call with its channel, time and outcome, and never its payload', async () => {
    const ipc = new FakeIpcMain()
    const handlers = refusingHandlers()
    const logger = new MemoryLogger()
    bindRouter(ipc, handlers, { isTrustedOrigin: isTrusted, logger, slowCallMs: 20 })
    handlers['calls.get'] = async () => null
    await ipc.invoke(ipcChannel('calls.get'), mainFrame(), { callId: 'quick' })
    expect(logger.lines.filter((l) => l.message === 'IPC call slow')).toEqual([])
    handlers['calls.get'] = async () => {
      await new Promise((r) => setTimeout(r, 40))
      throw new CallsightError('NotFound', 'No such call.')
    }
    await ipc.invoke(ipcChannel('calls.get'), mainFrame(), { callId: 'secret-call-id' })
    const slow = logger.lines.filter((l) => l.message === 'IPC call slow')
    expect(slow).toHaveLength(1)
    expect(slow[0]!.fields).toMatchObject({ channel: 'calls.get', outcome: 'NotFound' })
    expect(slow[0]!.fields!['ms']).toBeGreaterThanOrEqual(20)
    expect(logger.text()).not.toContain('secret-call-id')
  })

  it('answers Internal when a handler returns something outside the contract', async () => {
    const { ipc, handlers, logger } = setup()
    handlers['search.count'] = async () => ({ total: 'many' }) as unknown as Awaited<ReturnType<(typeof handlers)['search.count']>>
    const reply = (await ipc.invoke(ipcChannel('search.count'), mainFrame(), { query: {} })) as Result<unknown>
    expect(reply.ok === false && reply.error.code).toBe('Internal')
    expect(logger.lines.some((l) => l.message === 'IPC reply does not fit the contract')).toBe(true)
  })
})
