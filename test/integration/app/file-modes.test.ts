import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { openCache } from '../../../src/core/cache'
import { sideFileOf } from '../../../src/core/cache/ingest/deferred-index'
import { writeAtomically } from '../../../src/core/export/atomic-file'
import { openConfFile } from '../../../src/host/json-file'
import { createFileLogger } from '../../../src/host/logging/file-logger'
import { lockDataDir } from '../../../src/web/data-dir'
import { Settings } from '../../../src/shared/domain'
import type * as SettingsModule from '../../../src/host/settings-store'
import type * as SecretModule from '../../../src/main/adapters/secret-store'
import type * as JsonStoreModule from '../../../src/main/adapters/json-store'

// What the app writes must be readable by its user only, with the common umask 022 in effect
// (under which a plain write is 0644 and a folder 0755: the control below proves it).
const mode = (path: string): number => statSync(path).mode & 0o777
const posix = process.platform !== 'win32'

let settings: typeof SettingsModule
let secrets: typeof SecretModule
let jsonStore: typeof JsonStoreModule
let oldUmask = 0
let dir = ''
beforeAll(async () => {
  oldUmask = process.umask(0o022)
  // electron-store outside Electron (see settings-store.test.ts).
  process.env['ELECTRON_OVERRIDE_DIST_PATH'] = join(tmpdir(), 'no-electron-here')
  settings = await import('../../../src/host/settings-store')
  secrets = await import('../../../src/main/adapters/secret-store')
  jsonStore = await import('../../../src/main/adapters/json-store')
})
afterAll(() => {
  process.umask(oldUmask)
})
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})
const fresh = (): string => (dir = mkdtempSync(join(tmpdir(), 'callsight-modes-')))

describe.runIf(posix)('file and folder modes', () => {
  it('the umask in effect would make files 0644 and folders 0755 by default', () => {
    const root = fresh()
    writeFileSync(join(root, 'plain'), 'x')
    mkdirSync(join(root, 'folder'))
    expect(mode(join(root, 'plain'))).toBe(0o644)
    expect(mode(join(root, 'folder'))).toBe(0o755)
  })

  it('a cache file and its -wal and -shm are 0600, also when opened read-only after', () => {
    const file = join(fresh(), 'cli-cache.sqlite')
    const cache = openCache(file)
    try {
      cache.upsertCallTypes([{ value: 'Sales', description: 'Sales' }])
      for (const f of [file, `${file}-wal`, `${file}-shm`]) expect([f, mode(f)]).toEqual([f, 0o600])
    } finally {
      cache.close()
    }
    openCache(file, { readonly: true }).close()
    expect(mode(file)).toBe(0o600)
  })

  it("a first pull's index-build side file is 0600", async () => {
    const file = join(fresh(), 'pull.sqlite')
    const cache = openCache(file, { checkpointer: false })
    try {
      cache.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
      await cache.bulk.startIndexBuild()
      expect(mode(sideFileOf(file))).toBe(0o600)
    } finally {
      cache.close()
    }
  })

  it('a cache an older version wrote world-readable is tightened on open', () => {
    const file = join(fresh(), 'old.sqlite')
    openCache(file).close()
    chmodSync(file, 0o644)
    openCache(file, { readonly: true }).close()
    expect(mode(file)).toBe(0o600)
    chmodSync(file, 0o644)
    openCache(file).close()
    expect(mode(file)).toBe(0o600)
  })

  it.each([
    ['electron-store (desktop)', () => jsonStore.openJsonFile],
    ['conf (browser mode)', () => openConfFile]
  ])('settings.json and the vault, written through %s, are 0600 in a 0700 folder', (_name, opener) => {
    const userData = join(fresh(), 'Callsight')
    const open = opener()
    const store = settings.openSettingsStore({ cwd: userData, open: (cwd, name) => open({ cwd, name, clearInvalid: false }) })
    store.set(Settings.parse({}))
    const vault = secrets.openSecretStore(userData, (cwd, name) => open({ cwd, name, clearInvalid: true }))
    vault.set('tokens:a', new Uint8Array([1, 2, 3]))
    expect(mode(userData)).toBe(0o700)
    expect(mode(join(userData, 'settings.json'))).toBe(0o600)
    expect(mode(join(userData, 'vault.json'))).toBe(0o600)
  })

  it('a settings file left 0644 is tightened when it is opened, before any change', () => {
    const userData = fresh()
    writeFileSync(join(userData, 'settings.json'), '{}')
    settings.openSettingsStore({ cwd: userData, open: (cwd, name) => openConfFile({ cwd, name, clearInvalid: false }) })
    expect(mode(join(userData, 'settings.json'))).toBe(0o600)
  })

  it('the log folder is 0700 and its log 0600', () => {
    const logs = join(fresh(), 'Callsight', 'logs')
    const logger = createFileLogger({ dir: logs, name: 'serve' })
    logger.log('info', 'hello')
    expect(mode(logs)).toBe(0o700)
    expect(mode(join(logs, '..'))).toBe(0o700)
    expect(mode(logger.file)).toBe(0o600)
  })

  it("the browser mode's data folder is created 0700 and an old one is tightened with its files", () => {
    const created = join(fresh(), 'new', 'Callsight')
    lockDataDir(created).release()
    expect(mode(created)).toBe(0o700)

    // A data folder as an older version left it.
    const old = join(dir, 'old')
    mkdirSync(join(old, 'accounts'), { recursive: true, mode: 0o755 })
    mkdirSync(join(old, 'logs'), { mode: 0o755 })
    const files = ['settings.json', 'vault.json', 'accounts/a.sqlite', 'accounts/a.sqlite-wal', 'logs/serve.log']
    for (const f of files) writeFileSync(join(old, f), 'x', { mode: 0o644 })
    lockDataDir(old).release()
    for (const d of ['', 'accounts', 'logs']) expect([d, mode(join(old, d))]).toEqual([d, 0o700])
    for (const f of files) expect([f, mode(join(old, f))]).toEqual([f, 0o600])
  })

  it('an export file is 0600; the folder the user chose keeps its mode', async () => {
    const folder = join(fresh(), 'exports')
    mkdirSync(folder, { mode: 0o755 })
    const file = join(folder, 'calls.csv')
    await writeAtomically(file, async (out) => {
      out.write('id\n1\n')
    })
    expect(mode(file)).toBe(0o600)
    expect(mode(folder)).toBe(0o755)
  })
})
