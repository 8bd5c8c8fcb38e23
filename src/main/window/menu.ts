import type { MenuItemConstructorOptions } from 'electron'
import type { MenuCommand } from '../../shared/ipc/contract'

export interface MenuOptions {
  platform: NodeJS.Platform | string
  appName: string
  /** Development builds get reload and the developer tools. */
  isDev: boolean
  send(command: MenuCommand): void
}

/** An app command, forwarded to the renderer as a 'menu.command' event. */
function command(label: string, cmd: MenuCommand, accelerator: string | undefined, send: MenuOptions['send']): MenuItemConstructorOptions {
  const item: MenuItemConstructorOptions = { label, click: () => send(cmd) }
  if (accelerator !== undefined) item.accelerator = accelerator
  return item
}

/**
 * Keys the renderer handles itself, listed so they can be discovered. They are not
 * registered with the menu: a menu accelerator on "/" or the arrows would swallow those
 * keys in every text field.
 */
function listed(label: string, accelerator: string, cmd?: MenuCommand, send?: MenuOptions['send']): MenuItemConstructorOptions {
  const item: MenuItemConstructorOptions = { label, accelerator, registerAccelerator: false }
  if (cmd !== undefined && send !== undefined) item.click = () => send(cmd)
  else item.enabled = false
  return item
}

/** The native menu. Every app command is reachable from it and shows its shortcut. */
export function buildMenuTemplate(opts: MenuOptions): MenuItemConstructorOptions[] {
  const mac = opts.platform === 'darwin'
  const { send } = opts
  const template: MenuItemConstructorOptions[] = []

  if (mac) {
    template.push({
      label: opts.appName,
      submenu: [
        { role: 'about' },
        { type: 'separator' },
        command('Settings…', 'openSettings', 'CmdOrCtrl+,', send),
        { type: 'separator' },
        { role: 'hide' },
        { role: 'hideOthers' },
        { role: 'unhide' },
        { type: 'separator' },
        { role: 'quit' }
      ]
    })
  }

  template.push({
    label: 'File',
    submenu: [
      command('Export Selection…', 'exportSelection', 'CmdOrCtrl+E', send),
      ...(mac ? [] : [{ type: 'separator' } as const, command('Settings…', 'openSettings', 'CmdOrCtrl+,', send)]),
      { type: 'separator' },
      mac ? { role: 'close' } : { role: 'quit' }
    ]
  })

  template.push({
    label: 'Edit',
    submenu: [
      { role: 'undo' },
      { role: 'redo' },
      { type: 'separator' },
      { role: 'cut' },
      { role: 'copy' },
      { role: 'paste' },
      { role: 'selectAll' },
      { type: 'separator' },
      command('Select All Results', 'selectAll', 'CmdOrCtrl+Shift+A', send)
    ]
  })

  template.push({
    label: 'View',
    submenu: [
      command('Search', 'openSearch', 'CmdOrCtrl+1', send),
      command('Sync', 'openSync', 'CmdOrCtrl+2', send),
      command('Review', 'openReview', 'CmdOrCtrl+3', send),
      command('Insight', 'openInsight', 'CmdOrCtrl+4', send),
      { type: 'separator' },
      listed('Focus Search', '/', 'focusSearch', send),
      listed('Next Result', 'Down'),
      listed('Previous Result', 'Up'),
      listed('Open Result', 'Enter'),
      listed('Close', 'Escape'),
      { type: 'separator' },
      { role: 'resetZoom' },
      { role: 'zoomIn' },
      { role: 'zoomOut' },
      { type: 'separator' },
      { role: 'togglefullscreen' },
      ...(opts.isDev ? [{ type: 'separator' } as const, { role: 'reload' } as const, { role: 'toggleDevTools' } as const] : [])
    ]
  })

  template.push({ role: 'windowMenu' })

  template.push({
    role: 'help',
    submenu: [command('Keyboard Shortcuts', 'showShortcuts', 'F1', send)]
  })

  return template
}
