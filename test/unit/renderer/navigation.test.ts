import type { MenuItemConstructorOptions } from 'electron'
import { describe, expect, it } from 'vitest'
import { NAV_ITEMS, navCommandForKey, navKey } from '../../../src/renderer/src/lib/navigation'
import { buildMenuTemplate } from '../../../src/main/window/menu'

function flatten(items: MenuItemConstructorOptions[]): MenuItemConstructorOptions[] {
  return items.flatMap((i) => [i, ...(Array.isArray(i.submenu) ? flatten(i.submenu) : [])])
}

describe('Ctrl/Cmd + digit follows the sidebar', () => {
  it('opens the N-th sidebar item with Ctrl+N: Review is third, Insight fourth', () => {
    expect(NAV_ITEMS.map((i) => i.route)).toEqual(['search', 'sync', 'review', 'insight', 'settings'])
    NAV_ITEMS.slice(0, 4).forEach((item, i) => {
      expect(navKey(item)).toBe(String(i + 1))
      expect(navCommandForKey(String(i + 1))).toBe(item.command)
    })
    expect(navCommandForKey('3')).toBe('openReview')
    expect(navCommandForKey(',')).toBe('openSettings')
    expect(navCommandForKey('9')).toBeNull()
  })

  it('gives the application menu the same digits as the sidebar', () => {
    const sent: string[] = []
    const items = flatten(buildMenuTemplate({ platform: 'linux', appName: 'Callsight', isDev: false, send: (c) => sent.push(c) }))
    for (const item of NAV_ITEMS.slice(0, 4)) {
      const entry = items.find((i) => i.accelerator === `CmdOrCtrl+${navKey(item)}`)
      expect(entry, item.route).toBeDefined()
      ;(entry?.click as () => void)()
      expect(sent.at(-1)).toBe(item.command)
    }
  })
})
