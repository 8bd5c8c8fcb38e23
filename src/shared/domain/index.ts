/**
 * The domain types shared by every layer, split by concern; import from here.
 */
export * from './time'
export * from './records'
export * from './search'
export * from './sync'
export * from './account'
export * from './export'
export * from './settings'
export * from './insight'
export * from './membership'
export * from './team-count'
