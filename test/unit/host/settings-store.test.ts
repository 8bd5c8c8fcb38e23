import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { Settings } from '../../../src/shared/domain'
import type * as SettingsModule from '../../../src/host/settings-store'
import type * as SecretModule from '../../../src/main/adapters/secret-store'
import type * as JsonStoreModule from '../../../src/main/adapters/json-store'
import { openConfFile, type JsonFile } from '../../../src/host/json-file'
import { MemoryLogger } from '../main/fakes'

// The real electron-store, writing real files, with Electron absent: electron-store reads
// `app` from the electron package, which outside Electron is only a path string when
// ELECTRON_OVERRIDE_DIST_PATH is set (without it, the package tries to download a binary).
// The folder is always passed explicitly, as the app does with userData.
let settings: typeof SettingsModule
let secrets: typeof SecretModule
let jsonStore: typeof JsonStoreModule
beforeAll(async () => {
  process.env['ELECTRON_OVERRIDE_DIST_PATH'] = join(tmpdir(), 'no-electron-here')
  settings = await import('../../../src/host/settings-store')
  secrets = await import('../../../src/main/adapters/secret-store')
  jsonStore = await import('../../../src/main/adapters/json-store')
})

type Open = (cwd: string, name: string) => JsonFile
// The desktop app opens settings.json with electron-store, `callsight serve` with conf.
const OPENERS: Array<[string, () => Open]> = [
  ['electron-store (desktop)', () => (cwd, name) => jsonStore.openJsonFile({ cwd, name, clearInvalid: false })],
  ['conf (browser mode)', () => (cwd, name) => openConfFile({ cwd, name, clearInvalid: false })]
]

let dir = ''
const fresh = (): string => (dir = mkdtempSync(join(tmpdir(), 'callsight-settings-')))
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

const account = {
  id: 'acc-1',
  label: 'Acme',
  baseUrl: 'https://calls.example.com/',
  username: 'ayse',
  zone: 'Europe/Istanbul',
  rateLimit: { requests: 30, perSeconds: 60 },
  demo: false
}

describe.each(OPENERS)('settings store through %s', (_name, opener) => {
  let open: Open
  beforeAll(() => {
    open = opener()
  })

  it('starts from the schema defaults when there is no file', () => {
    const store = settings.openSettingsStore({ cwd: fresh(), open })
    expect(store.get()).toEqual(Settings.parse({}))
    expect(store.backupPath).toBeNull()
  })

  it('persists what is set, validated, across a reopen', () => {
    const cwd = fresh()
    const store = settings.openSettingsStore({ cwd, open })
    const next = {
      ...store.get(),
      theme: 'dark' as const,
      accounts: [Settings.shape.accounts.unwrap().element.parse(account)],
      activeAccountId: 'acc-1'
    }
    const saved = store.set(next)
    expect(saved.accounts[0]?.baseUrl).toBe('https://calls.example.com')
    const again = settings.openSettingsStore({ cwd, open })
    expect(again.get()).toEqual(saved)
    expect(JSON.parse(readFileSync(join(cwd, 'settings.json'), 'utf8'))).toMatchObject({ theme: 'dark', activeAccountId: 'acc-1' })
  })

  it('hands out copies: mutating a result does not change the store', () => {
    const store = settings.openSettingsStore({ cwd: fresh(), open })
    const s = store.get()
    s.theme = 'dark'
    expect(store.get().theme).toBe('system')
  })

  it.each([
    ['not JSON', '{"theme": "dark",'],
    ['outside the schema', JSON.stringify({ theme: 'purple', accounts: 'none' })],
    ['an account with plain http to a remote host', JSON.stringify({ accounts: [{ ...account, baseUrl: 'http://calls.example.com' }] })]
  ])('keeps a backup of a file that is %s, and starts from defaults', (_what, content) => {
    const cwd = fresh()
    writeFileSync(join(cwd, 'settings.json'), content)
    const logger = new MemoryLogger()
    const store = settings.openSettingsStore({ cwd, logger, now: () => Date.UTC(2026, 4, 6, 7, 8, 9), open })
    expect(store.get()).toEqual(Settings.parse({}))
    expect(store.backupPath).toBe(join(cwd, 'settings.invalid-2026-05-06T07-08-09-000Z.json'))
    expect(readFileSync(store.backupPath ?? '', 'utf8')).toBe(content)
    expect(logger.lines.some((l) => l.level === 'warn')).toBe(true)
    // The app carries on and can save again.
    store.set({ ...store.get(), language: 'tr' })
    expect(settings.openSettingsStore({ cwd, open }).get().language).toBe('tr')
  })

  it('keeps a valid older file and fills in what it lacks', () => {
    const cwd = fresh()
    writeFileSync(join(cwd, 'settings.json'), JSON.stringify({ language: 'tr' }))
    const store = settings.openSettingsStore({ cwd, open })
    expect(store.backupPath).toBeNull()
    expect(store.get()).toEqual(Settings.parse({ language: 'tr' }))
    expect(readdirSync(cwd).filter((f) => f.includes('invalid'))).toEqual([])
  })

  it('never keeps a team cache password in the address: an old one is dropped on read, not the account', () => {
    const cwd = fresh()
    const url = 'postgres://acme_reader@db.example.com:5432/team?sslmode=verify-full&password=old-secret&sslpassword=key-secret'
    const teamCache = { url, schema: 'acme', sslMode: 'verify-full', sslRootCert: '/etc/ca.pem' }
    writeFileSync(join(cwd, 'settings.json'), JSON.stringify({ accounts: [{ ...account, teamCache }], activeAccountId: account.id }))
    const store = settings.openSettingsStore({ cwd, open })
    expect(store.backupPath).toBeNull()
    expect(store.get().accounts[0]!.teamCache!.url).toBe('postgres://acme_reader@db.example.com:5432/team?sslmode=verify-full')
    store.set(store.get())
    expect(readFileSync(join(cwd, 'settings.json'), 'utf8')).not.toMatch(/secret/)
    // What is set with a password in the address is stored without it, too.
    store.set({ ...store.get(), accounts: [{ ...account, teamCache: { ...teamCache, url: 'postgres://r:pw-in-userinfo@h/db' } }] } as never)
    expect(readFileSync(join(cwd, 'settings.json'), 'utf8')).not.toMatch(/pw-in-userinfo/)
  })

  it('refuses to write settings outside the schema, keeping the old ones', () => {
    const cwd = fresh()
    const store = settings.openSettingsStore({ cwd, open })
    store.set({ ...store.get(), language: 'en' })
    expect(() => store.set({ ...store.get(), displayZone: 'Mars/Olympus' })).toThrowError(expect.objectContaining({ code: 'InvalidInput' }))
    expect(settings.openSettingsStore({ cwd, open }).get().language).toBe('en')
    expect(store.get().displayZone).toBe('system')
  })
})

describe('settings.json shared by the desktop app and the browser mode', () => {
  it('reads what the other wrote, and writes the same bytes', () => {
    const [desktop, browser] = OPENERS.map(([, o]) => o())
    const cwd = fresh()
    const fromDesktop = settings.openSettingsStore({ cwd, open: desktop! })
    const saved = fromDesktop.set({
      ...fromDesktop.get(),
      language: 'tr',
      accounts: [Settings.shape.accounts.unwrap().element.parse(account)],
      activeAccountId: 'acc-1'
    })
    const desktopBytes = readFileSync(join(cwd, 'settings.json'), 'utf8')

    const fromBrowser = settings.openSettingsStore({ cwd, open: browser! })
    expect(fromBrowser.backupPath).toBeNull()
    expect(fromBrowser.get()).toEqual(saved)
    // Written back by the browser mode: byte for byte what the desktop app writes.
    fromBrowser.set({ ...fromBrowser.get() })
    expect(readFileSync(join(cwd, 'settings.json'), 'utf8')).toBe(desktopBytes)
    fromBrowser.set({ ...fromBrowser.get(), theme: 'dark' })
    expect(settings.openSettingsStore({ cwd, open: desktop! }).get()).toEqual({ ...saved, theme: 'dark' })
  })
})

describe('secret store', () => {
  it('keeps bytes and plain values in its own file, across a reopen', () => {
    const cwd = fresh()
    const store = secrets.openSecretStore(cwd)
    const bytes = new Uint8Array([0, 1, 2, 250, 255])
    store.set('acc.1', { backend: 'electron-safestorage:gnome_libsecret' })
    store.set('acc.1:ciphertext', bytes)
    const again = secrets.openSecretStore(cwd)
    expect(again.get('acc.1')).toEqual({ backend: 'electron-safestorage:gnome_libsecret' })
    expect(again.get('acc.1:ciphertext')).toEqual(bytes)
    again.delete('acc.1:ciphertext')
    expect(secrets.openSecretStore(cwd).get('acc.1:ciphertext')).toBeUndefined()
    expect(existsSync(join(cwd, 'vault.json'))).toBe(true)
    expect(existsSync(join(cwd, 'settings.json'))).toBe(false)
  })

  it('starts empty instead of failing when its file is corrupt', () => {
    const cwd = fresh()
    writeFileSync(join(cwd, 'vault.json'), '\u0000\u0001garbage')
    const store = secrets.openSecretStore(cwd)
    expect(store.get('anything')).toBeUndefined()
    store.set('k', 'v')
    expect(secrets.openSecretStore(cwd).get('k')).toBe('v')
  })
})
