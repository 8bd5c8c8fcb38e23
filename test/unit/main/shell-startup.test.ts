import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { CHANNELS, ipcChannel } from '../../../src/shared/ipc/names'
import { makeFakeElectron, type FakeElectron } from './shell-startup.fake'

// The whole main entry (src/main/index.ts) against a fake Electron: what it does at start,
// in which order, and what the window and IPC end up like. electron-store itself is real
// and reaches the electron package directly; outside Electron that package is only a path
// string when ELECTRON_OVERRIDE_DIST_PATH is set (otherwise it tries to download a binary).

const fake = vi.hoisted(() => ({ current: null as null | FakeElectron }))
// The factory runs when index.ts first imports electron, after beforeAll prepared the fake.
vi.mock('electron', () => {
  if (!fake.current) throw new Error('fake electron not prepared')
  return { ...fake.current.module, default: fake.current.module }
})

let userData = ''
let e: FakeElectron

// index.ts runs once per module registry; one start serves every test in this file (the
// second-instance case has a file of its own).
beforeAll(async () => {
  process.env['ELECTRON_OVERRIDE_DIST_PATH'] = join(tmpdir(), 'no-electron-here')
  userData = mkdtempSync(join(tmpdir(), 'callsight-shell-'))
  fake.current = makeFakeElectron({ userData, lock: true })
  await import('../../../src/main/index')
  await vi.waitFor(() => {
    if (!fake.current?.windows[0]) throw new Error('no window yet')
  })
  e = fake.current
})
afterAll(() => {
  rmSync(userData, { recursive: true, force: true })
})

const rendererUrl = `file://${resolve('src/renderer/index.html')}`

describe('main process start-up', () => {
  it('takes the lock first, then opens one hardened window with every channel bound', async () => {
    expect(e.calls[0]).toBe('requestSingleInstanceLock')
    expect(e.calls.indexOf('requestSingleInstanceLock')).toBeLessThan(e.calls.indexOf('getPath:userData'))
    const win = e.windows[0]
    expect(e.windows).toHaveLength(1)
    expect(win?.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webviewTag: false })
    expect(win?.options.webPreferences.preload).toMatch(/preload[\\/]index\.cjs$/)
    expect([...e.ipc.keys()].sort()).toEqual(CHANNELS.map(ipcChannel).sort())
    expect(e.csp).toBeTypeOf('function')
    expect(existsSync(join(userData, 'logs', 'main.log'))).toBe(true)

    const call = (url: string) =>
      e.ipc.get(ipcChannel('app.info'))?.({ senderFrame: { url, parent: null }, sender: { id: 1 } }, {}) as Promise<unknown>
    expect(await call(rendererUrl)).toMatchObject({ ok: true, value: { version: '0.1.0-test' } })
    expect(await call('https://evil.example.com/')).toMatchObject({ ok: false, error: { code: 'Forbidden' } })
  })

  it('focuses the existing window when a second instance starts', async () => {
    e.app.emit('second-instance')
    expect(e.windows[0]?.focused).toBe(1)
  })

  it('sends menu commands and theme changes to the window as contract events', async () => {
    const view = e.menu?.find((m) => m.label === 'View')
    const search = (view?.submenu as { label?: string; click?: () => void }[]).find((i) => i.label === 'Search')
    search?.click?.()
    e.nativeTheme.shouldUseDarkColors = true
    e.nativeTheme.emit('updated')
    expect(e.windows[0]?.sent).toEqual([
      ['callsight-event:menu.command', { command: 'openSearch' }],
      ['callsight-event:theme.changed', { dark: true }]
    ])
  })

  it('remembers the window bounds and unbinds IPC on quit', async () => {
    e.windows[0]?.emit('close')
    expect(existsSync(join(userData, 'window-state.json'))).toBe(true)
    let prevented = false
    e.app.emit('will-quit', { preventDefault: () => (prevented = true) })
    expect(prevented).toBe(true)
    await vi.waitFor(() => expect(e.calls).toContain('quit'))
    expect(e.ipc.size).toBe(0)
  })
})
