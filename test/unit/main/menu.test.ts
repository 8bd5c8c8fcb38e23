import type { MenuItemConstructorOptions } from 'electron'
import { describe, expect, it } from 'vitest'
import { MenuCommand } from '../../../src/shared/ipc/contract'
import { buildMenuTemplate } from '../../../src/main/window/menu'

function flatten(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])])
}

function build(platform: string, isDev = false) {
  const sent: string[] = []
  const items = flatten(buildMenuTemplate({ platform, appName: 'Callsight', isDev, send: (c) => sent.push(c) }))
  return { items, sent }
}

const click = (item: MenuItemConstructorOptions): void => (item.click as (() => void) | undefined)?.()

describe('application menu', () => {
  it.each(['linux', 'darwin', 'win32'])('on %s reaches every app command, each with a listed shortcut', (platform) => {
    const { items, sent } = build(platform)
    for (const item of items) if (item.click) click(item)
    expect(new Set(sent)).toEqual(new Set(MenuCommand.options))
    for (const item of items.filter((i) => i.click)) expect(item.accelerator).toBeTruthy()
  })

  it('lists "/" for search and the result keys without capturing them from text fields', () => {
    const { items } = build('linux')
    const byAccel = (a: string) => items.find((i) => i.accelerator === a)
    for (const key of ['/', 'Up', 'Down', 'Enter', 'Escape']) {
      expect(byAccel(key)?.registerAccelerator).toBe(false)
    }
    expect(byAccel('CmdOrCtrl+E')?.registerAccelerator).toBeUndefined()
  })

  it('keeps the usual editing roles, and shows developer tools only in development', () => {
    const roles = (items: MenuItemConstructorOptions[]) => items.map((i) => i.role).filter(Boolean)
    const prod = build('linux').items
    expect(roles(prod)).toEqual(expect.arrayContaining(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll', 'quit']))
    expect(roles(prod)).not.toContain('toggleDevTools')
    expect(roles(build('linux', true).items)).toContain('toggleDevTools')
  })

  it('uses distinct accelerators', () => {
    const accels = build('win32')
      .items.map((i) => i.accelerator)
      .filter((a): a is string => typeof a === 'string')
    expect(new Set(accels).size).toBe(accels.length)
  })
})
