import { join } from 'node:path'
import { app, ipcMain, Menu, nativeTheme, session, type BrowserWindow } from 'electron'
import type { AppController } from '../core/app/host-ports'
import type { MenuCommand } from '../shared/ipc/contract'
import { createShellServices, logsDir, openExternalSafely } from './app-context'
import { createFileLogger } from '../host/logging/file-logger'
import { bindRouter } from '../host/ipc/router'
import { createAppController } from '../core/app/controller'
import { hardenSession, hardenWebContents } from './security/harden'
import { createOriginCheck } from './security/origin'
import { buildMenuTemplate } from './window/menu'
import { createMainWindow, focusWindow } from './window/main-window'
import { followTheme } from './window/theme'

const isDev = !app.isPackaged
const devServerUrl = isDev ? process.env['ELECTRON_RENDERER_URL'] : undefined
const preload = join(__dirname, '../preload/index.cjs')
const rendererIndex = join(__dirname, '../renderer/index.html')

// The lock comes before anything opens a database or the token vault: two instances on
// one SQLite file and one vault corrupt each other's state.
if (!app.requestSingleInstanceLock()) {
  app.quit()
} else {
  main()
}

function main(): void {
  const logger = createFileLogger({ dir: logsDir(), level: isDev ? 'debug' : 'info', echo: isDev })
  logger.log('info', 'Callsight starting', { version: app.getVersion(), electron: process.versions.electron, platform: process.platform })
  process.on('uncaughtException', (error) => logger.log('error', 'Uncaught exception', { error }))
  process.on('unhandledRejection', (error) => logger.log('error', 'Unhandled rejection', { error }))

  let win: BrowserWindow | null = null
  let controller: AppController | null = null
  let unbind: (() => void) | null = null

  app.on('second-instance', () => focusWindow(win))
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, openExternalSafely, logger))

  const openWindow = (windowState: Parameters<typeof createMainWindow>[0]['state']): void => {
    win = createMainWindow({ preload, rendererIndex, devServerUrl, state: windowState, logger })
    win.on('closed', () => {
      win = null
    })
  }

  app
    .whenReady()
    .then(async () => {
      const isTrustedOrigin = createOriginCheck({ devServerUrl, rendererIndex })
      hardenSession(session.defaultSession, isTrustedOrigin, logger)

      const { platform, windowState } = await createShellServices({ logger, getWindow: () => win })
      controller = createAppController(platform)
      unbind = bindRouter(ipcMain, controller.handlers, { isTrustedOrigin, logger })

      const send = (command: MenuCommand): void => platform.events.emit('menu.command', { command })
      Menu.setApplicationMenu(Menu.buildFromTemplate(buildMenuTemplate({ platform: process.platform, appName: app.name, isDev, send })))
      followTheme(nativeTheme, platform.events)

      openWindow(windowState)
      app.on('activate', () => {
        if (win === null) openWindow(windowState)
      })
    })
    .catch((error: unknown) => {
      logger.log('error', 'Callsight could not start', { error })
      app.exit(1)
    })

  app.on('window-all-closed', () => {
    if (process.platform !== 'darwin') app.quit()
  })

  // Let the controller finish writes (sync state, database close) before the process ends.
  app.on('will-quit', (event) => {
    const closing = controller
    if (closing === null) return
    controller = null
    event.preventDefault()
    unbind?.()
    closing
      .dispose()
      .catch((error: unknown) => logger.log('error', 'Shutdown did not finish cleanly', { error }))
      .finally(() => app.quit())
  })
}
