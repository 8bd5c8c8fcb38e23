import type { MenuCommand } from '../../../shared/ipc/contract'

/**
 * The sidebar's screens, in the sidebar's order. Ctrl/Cmd+N opens the N-th of them, so the
 * digit a user counts down the sidebar is the digit that opens it; the menu, the sidebar's
 * tooltips and the shortcuts dialog are all read from this one list.
 */
export const NAV_ITEMS = [
  { route: 'search', to: '/search', label: 'nav.search', testid: 'nav-search', command: 'openSearch', help: 'shortcuts.goSearch' },
  { route: 'sync', to: '/sync', label: 'nav.sync', testid: 'nav-sync', command: 'openSync', help: 'shortcuts.goSync' },
  { route: 'review', to: '/review', label: 'nav.review', testid: 'nav-review', command: 'openReview', help: 'shortcuts.goReview' },
  { route: 'insight', to: '/insight', label: 'nav.insight', testid: 'nav-insight', command: 'openInsight', help: 'shortcuts.goInsight' },
  {
    route: 'settings',
    to: '/settings',
    label: 'nav.settings',
    testid: 'nav-settings',
    command: 'openSettings',
    help: 'shortcuts.goSettings'
  }
] as const satisfies ReadonlyArray<{ route: string; to: string; label: string; testid: string; command: MenuCommand; help: string }>

export type NavItem = (typeof NAV_ITEMS)[number]

/** The key after Ctrl/Cmd for an item: its place in the sidebar, Settings keeps the usual ",". */
export function navKey(item: NavItem): string {
  if (item.route === 'settings') return ','
  return String(NAV_ITEMS.indexOf(item) + 1)
}

/** The menu command Ctrl/Cmd + `key` runs, or null for a key that opens no screen. */
export function navCommandForKey(key: string): MenuCommand | null {
  return NAV_ITEMS.find((item) => navKey(item) === key)?.command ?? null
}
