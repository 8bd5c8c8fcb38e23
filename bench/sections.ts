import type { BenchFn } from './types'

/** Every benchmark section, loaded lazily so `--only` runs just what it names. */
export const sections: Record<string, () => Promise<BenchFn>> = {
  service: async () => (await import('./service')).run,
  ratelimit: async () => (await import('./ratelimit')).run,
  pacing: async () => (await import('./pacing')).run,
  'pacing-sim': async () => (await import('./pacing-sim')).run,
  sync: async () => (await import('./sync')).run,
  memberships: async () => (await import('./memberships')).run,
  search: async () => (await import('./search')).run,
  ingest: async () => (await import('./ingest')).run,
  'cli-startup': async () => (await import('./cli-startup')).run,
  'column-sort': async () => (await import('./column-sort')).run,
  query: async () => (await import('./query')).run,
  export: async () => (await import('./export')).run,
  pii: async () => (await import('./pii')).run,
  renderer: async () => (await import('./renderer')).run,
  team: async () => (await import('./team')).run,
  sizing: async () => (await import('./sizing')).run,
  'analysis-layout': async () => (await import('./analysis-layout')).run,
  'team-search': async () => (await import('./team-search')).run,
  review: async () => (await import('./review')).run,
  scale: async () => (await import('./scale')).run,
  'review-team': async () => (await import('./review-team')).run
}
