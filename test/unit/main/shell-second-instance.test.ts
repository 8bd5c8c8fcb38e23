import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { makeFakeElectron, type FakeElectron } from './shell-startup.fake'

// A second launch: the single-instance lock is refused, so nothing may be opened.
const fake = vi.hoisted(() => ({ current: null as null | FakeElectron }))
vi.mock('electron', () => {
  if (!fake.current) throw new Error('fake electron not prepared')
  return { ...fake.current.module, default: fake.current.module }
})

let userData = ''
beforeAll(async () => {
  process.env['ELECTRON_OVERRIDE_DIST_PATH'] = join(tmpdir(), 'no-electron-here')
  userData = mkdtempSync(join(tmpdir(), 'callsight-shell-'))
  fake.current = makeFakeElectron({ userData, lock: false })
  await import('../../../src/main/index')
  await new Promise((r) => setTimeout(r, 50))
})
afterAll(() => {
  rmSync(userData, { recursive: true, force: true })
})

describe('second instance', () => {
  it('quits before opening a window, a log, a store or IPC', () => {
    const e = fake.current as FakeElectron
    expect(e.calls).toEqual(['requestSingleInstanceLock', 'quit'])
    expect(e.windows).toEqual([])
    expect(e.ipc.size).toBe(0)
    expect(readdirSync(userData)).toEqual([])
  })
})
