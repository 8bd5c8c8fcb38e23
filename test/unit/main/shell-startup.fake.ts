import { EventEmitter } from 'node:events'
import type { IpcEventLike } from '../../../src/host/ipc/router'

type Handler = (event: IpcEventLike, payload: unknown) => unknown

/** Just enough of Electron's main-process API for src/main/index.ts, recording what it is asked. */
export function makeFakeElectron(opts: { userData: string; lock: boolean }) {
  const calls: string[] = []
  const ipc = new Map<string, Handler>()
  const windows: FakeWindow[] = []
  const state: { csp: unknown; menu: { label?: string; submenu?: unknown }[] | null } = { csp: null, menu: null }

  class FakeWindow extends EventEmitter {
    readonly options: { webPreferences: Record<string, unknown> } & Record<string, unknown>
    readonly sent: [string, unknown][] = []
    focused = 0
    readonly webContents = {
      isDestroyed: () => false,
      send: (channel: string, payload: unknown) => this.sent.push([channel, payload])
    }
    constructor(options: { webPreferences: Record<string, unknown> } & Record<string, unknown>) {
      super()
      this.options = options
      windows.push(this)
    }
    isDestroyed = (): boolean => false
    isMinimized = (): boolean => false
    isMaximized = (): boolean => false
    maximize = (): void => undefined
    restore = (): void => undefined
    show = (): void => undefined
    focus = (): void => void this.focused++
    getNormalBounds = () => ({ x: 10, y: 20, width: 1000, height: 700 })
    loadFile = async (): Promise<void> => undefined
    loadURL = async (): Promise<void> => undefined
  }

  const app = Object.assign(new EventEmitter(), {
    // Packaged: no echo of the log to stderr, no developer menu.
    isPackaged: true,
    name: 'Callsight',
    requestSingleInstanceLock: () => (calls.push('requestSingleInstanceLock'), opts.lock),
    quit: () => void calls.push('quit'),
    exit: (code: number) => void calls.push(`exit:${code}`),
    whenReady: () => (calls.push('whenReady'), Promise.resolve()),
    isReady: () => true,
    getPath: (name: string) => (calls.push(`getPath:${name}`), name === 'userData' ? opts.userData : `${opts.userData}/${name}`),
    getVersion: () => '0.1.0-test',
    getPreferredSystemLanguages: () => ['tr-TR'],
    getLocale: () => 'en-US'
  })

  const nativeTheme = Object.assign(new EventEmitter(), { shouldUseDarkColors: false, themeSource: 'system' })
  const display = { workArea: { x: 0, y: 0, width: 1920, height: 1080 } }

  const module = {
    app,
    BrowserWindow: FakeWindow,
    ipcMain: {
      // electron-store registers a listener of its own.
      on: () => undefined,
      handle: (channel: string, fn: Handler) => void ipc.set(channel, fn),
      removeHandler: (channel: string) => void ipc.delete(channel)
    },
    Menu: {
      buildFromTemplate: (template: { label?: string }[]) => template,
      setApplicationMenu: (menu: { label?: string }[]) => void (state.menu = menu)
    },
    nativeTheme,
    session: {
      defaultSession: {
        webRequest: { onHeadersReceived: (listener: unknown) => void (state.csp = listener) },
        setPermissionRequestHandler: () => undefined,
        setPermissionCheckHandler: () => undefined
      }
    },
    screen: { getAllDisplays: () => [display], getPrimaryDisplay: () => display },
    safeStorage: {
      isAsyncEncryptionAvailable: async () => true,
      getSelectedStorageBackend: () => 'gnome_libsecret',
      encryptStringAsync: async (s: string) => Buffer.from(s),
      decryptStringAsync: async (b: Buffer) => ({ result: b.toString(), shouldReEncrypt: false })
    },
    net: {
      request: () => {
        throw new Error('no network in tests')
      }
    },
    dialog: { showSaveDialog: async () => ({ canceled: true }) },
    shell: { openExternal: async () => undefined }
  }

  return {
    module,
    app,
    nativeTheme,
    calls,
    ipc,
    windows,
    get csp() {
      return state.csp
    },
    get menu() {
      return state.menu
    }
  }
}

export type FakeElectron = ReturnType<typeof makeFakeElectron>
