/**
 * Channel and event names alone, with no schema library, so the sandboxed preload can build
 * window.api from them and stay tiny. contract.ts checks that it covers exactly these.
 */
export const CHANNELS = [
  'app.info',
  'session.get',
  'session.signIn',
  'session.startDemo',
  'session.signOut',
  'settings.get',
  'settings.update',
  'accounts.remove',
  'accounts.list',
  'accounts.switch',
  'catalog.callTypes',
  'catalog.import',
  'catalog.save',
  'sync.start',
  'sync.cancel',
  'sync.scopes',
  'sync.membershipEstimate',
  'sync.memberships',
  'search.page',
  'search.count',
  'search.facets',
  'search.analysisKeys',
  'insight.breakdown',
  'insight.trend',
  'search.values',
  'search.columns',
  'calls.get',
  'remote.search',
  'savedSearches.save',
  'savedSearches.remove',
  'export.start',
  'export.cancel',
  'export.reveal',
  'cache.info',
  'cache.clear',
  'shell.openExternal',
  'team.connect',
  'team.pull',
  'team.cancel',
  'team.status',
  'annotations.get',
  'annotations.save',
  'annotations.undo',
  'annotations.tags',
  'annotations.resolveConflict',
  'scorecards.list',
  'scorecards.save',
  'scorecards.import',
  'scorecards.export',
  'reviewLists.list',
  'reviewLists.create',
  'reviewLists.add',
  'reviewLists.removeCalls',
  'reviewLists.delete',
  'reviewLists.items',
  'reviewLists.nextUnreviewed',
  'review.stats'
] as const
export type ChannelName = (typeof CHANNELS)[number]

export const EVENTS = [
  'session.changed',
  'sync.progress',
  'connectivity.changed',
  'export.progress',
  'menu.command',
  'theme.changed',
  'team.progress',
  'team.schedule',
  'review.queue',
  'sync.membershipProgress'
] as const
export type EventName = (typeof EVENTS)[number]

/** IPC channel strings are namespaced so nothing else on ipcMain can collide with them. */
export const ipcChannel = (name: ChannelName): string => `callsight:${name}`
export const ipcEvent = (name: EventName): string => `callsight-event:${name}`
