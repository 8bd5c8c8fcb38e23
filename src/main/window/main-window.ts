import { BrowserWindow, nativeTheme, screen } from 'electron'
import type { KeyValueStore, Logger } from '../../core/platform'
import { clampBounds, MIN_SIZE, WindowState } from './bounds'

const STATE_KEY = 'mainWindow'

export interface MainWindowOptions {
  /** out/preload/index.cjs */
  preload: string
  /** out/renderer/index.html */
  rendererIndex: string
  devServerUrl?: string | undefined
  /** Where bounds are remembered between runs. */
  state: KeyValueStore
  logger?: Logger
}

/**
 * The one window. Sandboxed and isolated: the renderer reaches the app only through the
 * preload's window.api. Navigation, pop-ups and webviews are blocked for every
 * webContents in index.ts ('web-contents-created'), so nothing here can forget it.
 */
export function createMainWindow(opts: MainWindowOptions): BrowserWindow {
  const saved = WindowState.safeParse(opts.state.get(STATE_KEY))
  const bounds = clampBounds(
    saved.success ? saved.data.bounds : null,
    screen.getAllDisplays().map((d) => d.workArea),
    screen.getPrimaryDisplay().workArea
  )

  const win = new BrowserWindow({
    ...bounds,
    minWidth: MIN_SIZE.width,
    minHeight: MIN_SIZE.height,
    show: false,
    title: 'Callsight',
    backgroundColor: nativeTheme.shouldUseDarkColors ? '#18181b' : '#ffffff',
    webPreferences: {
      preload: opts.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      webviewTag: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false
    }
  })
  if (saved.success && saved.data.maximized) win.maximize()

  win.on('close', () => {
    const state: WindowState = { bounds: win.getNormalBounds(), maximized: win.isMaximized() }
    try {
      opts.state.set(STATE_KEY, state)
    } catch (e) {
      opts.logger?.log('warn', 'Could not remember the window bounds', { error: e })
    }
  })
  win.once('ready-to-show', () => win.show())

  const loaded = opts.devServerUrl ? win.loadURL(opts.devServerUrl) : win.loadFile(opts.rendererIndex)
  loaded.catch((e: unknown) => opts.logger?.log('error', 'The window could not load the app', { error: e }))
  return win
}

export function focusWindow(win: BrowserWindow | null): void {
  if (!win || win.isDestroyed()) return
  if (win.isMinimized()) win.restore()
  win.show()
  win.focus()
}
