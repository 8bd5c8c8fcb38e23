import { join } from 'node:path'
import type { DemoProvider, EventSink, PlatformServices } from '../core/app/host-ports'
import { CallsightError } from '../core/errors'
import type { Cipher, Logger } from '../core/platform'
import { MemoryStore, systemClock } from '../core/platform/node'
import { openConfFile } from '../host/json-file'
import { openSettingsStore } from '../host/settings-store'
import type { DownloadStaging } from './downloads'

/** The English form of the 'browserMode' notice (logs, CLI); the UI shows its own translation. */
export const NOTICE_BROWSER_MODE =
  'Callsight is running in your browser (callsight serve), which keeps your sign-in only while it runs. You will have to sign in again after it restarts.'

/**
 * No OS keyring is reachable from plain Node without a native keyring library, so tokens stay
 * in memory. This cipher says it is not secure and refuses both ways, so nothing is ever
 * written or trusted from disk, even by a caller that forgets to check.
 */
export const memoryOnlyCipher: Cipher = {
  backend: 'browser-mode-memory',
  secure: false,
  encrypt: () => Promise.reject(new CallsightError('Storage', 'Browser mode keeps sign-in tokens in memory only.')),
  decrypt: () => Promise.reject(new CallsightError('Storage', 'Browser mode keeps sign-in tokens in memory only.'))
}

export interface BrowserPlatformOptions {
  /** The desktop app's userData (or --data-dir): settings.json and accounts/ are shared with it. */
  dataDir: string
  logger: Logger
  events: EventSink
  downloads: DownloadStaging
  demo: DemoProvider | null
  appVersion: string
  /** Opens a web link with the system's browser opener. */
  openExternal(url: string): Promise<void>
}

/**
 * PlatformServices for the controller in browser mode: the desktop app's files (settings.json
 * through conf, the same format as electron-store; account caches under accounts/), global
 * fetch, exports as browser downloads, and tokens in memory only. The token vault gets a store
 * of its own in memory, so the desktop app's vault.json is never read, rewritten or emptied.
 */
export function createBrowserPlatform(opts: BrowserPlatformOptions): PlatformServices {
  const settingsStore = openSettingsStore({
    cwd: opts.dataDir,
    logger: opts.logger,
    open: (cwd, name) => openConfFile({ cwd, name, clearInvalid: false })
  })
  return {
    paths: { userData: opts.dataDir, logs: join(opts.dataDir, 'logs') },
    cipher: memoryOnlyCipher,
    tokenPersistence: { persist: false, notice: NOTICE_BROWSER_MODE, noticeCode: 'browserMode' },
    settingsStore,
    secretStore: new MemoryStore(),
    // Node's fetch: unlike the desktop app's net.request, no system proxy or OS certificate store.
    fetch: (input, init) => fetch(input, init),
    clock: systemClock,
    logger: opts.logger,
    dialogs: opts.downloads.dialogs,
    events: opts.events,
    openExternal: opts.openExternal,
    // better-sqlite3 as npm built it, for this Node.
    nativeBinding: undefined,
    appVersion: opts.appVersion,
    electronVersion: null,
    platform: process.platform,
    // Node's ICU reads LANG/LC_ALL like the desktop app reads the OS language.
    locale: Intl.DateTimeFormat().resolvedOptions().locale,
    systemZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    darkMode: () => false,
    setThemeSource: () => undefined,
    demo: opts.demo
  }
}
