import { join } from 'node:path'
import { homedir } from 'node:os'
import { app, dialog, nativeTheme, net, safeStorage, shell, type BrowserWindow } from 'electron'
import { CallsightError } from '../core/errors'
import { systemClock } from '../core/platform/node'
import { tightenDataDir } from '../core/platform/private-files'
import type { KeyValueStore, Logger } from '../core/platform'
import type { PlatformServices } from '../core/app/host-ports'
import { createSafeStorageCipher } from './adapters/cipher'
import { createExportDialogs } from './adapters/dialogs'
import { openJsonFile } from './adapters/json-store'
import { createServiceFetch } from './adapters/service-fetch'
import { openKeyValueFile, openSecretStore } from './adapters/secret-store'
import { openSettingsStore } from '../host/settings-store'
import { createDemoProvider } from '../host/demo'
import { createEventSink } from '../host/ipc/events'
import { resolveNativeBinding } from './native'
import { safeExternalUrl } from './security/navigation'

export interface ShellServices {
  platform: PlatformServices
  /** Window bounds between runs; not the controller's business. */
  windowState: KeyValueStore
}

/** userData/logs: the file logger's folder, known before the app is ready. */
export const logsDir = (): string => join(app.getPath('userData'), 'logs')

/** Opens an http(s) link in the user's browser; everything else is refused. */
export async function openExternalSafely(raw: string): Promise<void> {
  const url = safeExternalUrl(raw)
  if (url === null) throw new CallsightError('InvalidInput', 'Only web links (http or https) can be opened.')
  await shell.openExternal(url)
}

/**
 * Builds what the controller needs from Electron. Call after app 'ready': safeStorage
 * cannot say which keyring it uses before then.
 */
export async function createShellServices(opts: { logger: Logger; getWindow: () => BrowserWindow | null }): Promise<ShellServices> {
  if (!app.isReady()) throw new Error('createShellServices must run after app ready')
  const userData = app.getPath('userData')
  const { logger } = opts
  // Chromium creates userData as 0700; one an older version (or another tool) left wider, and
  // the settings, vault, logs and caches in it, are tightened before anything is read.
  tightenDataDir(userData)

  const cipher = await createSafeStorageCipher(safeStorage, process.platform)
  logger.log('info', 'Token storage decided', { backend: cipher.backend, persist: cipher.policy.persist })

  const settingsStore = openSettingsStore({ cwd: userData, logger, open: (cwd, name) => openJsonFile({ cwd, name, clearInvalid: false }) })
  const secretStore = openSecretStore(userData)
  const windowState = openKeyValueFile(userData, 'window-state')

  const window = (): BrowserWindow | null => {
    const w = opts.getWindow()
    return w && !w.isDestroyed() ? w : null
  }
  const events = createEventSink(() => window()?.webContents, logger)

  const dialogs = createExportDialogs(
    (options) => {
      const w = window()
      return w ? dialog.showSaveDialog(w, options) : dialog.showSaveDialog(options)
    },
    () => {
      try {
        return app.getPath('documents')
      } catch {
        return homedir()
      }
    },
    { openPath: (path) => shell.openPath(path), showItemInFolder: (path) => shell.showItemInFolder(path) }
  )

  const platform: PlatformServices = {
    paths: { userData, logs: logsDir() },
    cipher,
    tokenPersistence: { persist: cipher.policy.persist, notice: cipher.policy.notice, noticeCode: cipher.policy.noticeCode },
    settingsStore,
    secretStore,
    // Electron's network stack (system proxy and PAC settings, the OS certificate store),
    // through net.request so a redirect is reported, never followed (adapters/service-fetch.ts).
    fetch: createServiceFetch((options) => net.request(options)),
    clock: systemClock,
    logger,
    dialogs,
    events,
    openExternal: openExternalSafely,
    nativeBinding: resolveNativeBinding(),
    appVersion: app.getVersion(),
    electronVersion: process.versions.electron ?? null,
    platform: process.platform,
    locale: app.getPreferredSystemLanguages()[0] ?? app.getLocale(),
    systemZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    darkMode: () => nativeTheme.shouldUseDarkColors,
    setThemeSource: (source) => {
      nativeTheme.themeSource = source
    },
    demo: createDemoProvider({ logger })
  }
  return { platform, windowState }
}
