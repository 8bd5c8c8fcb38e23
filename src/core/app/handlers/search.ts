import { randomUUID } from 'node:crypto'
import { foldTypeName, parseCallTypeFile } from '../../cache'
import { remoteSearch } from '../../client'
import { RateWaitGuard } from '../../client/rate-wait-guard'
import { CallsightError } from '../../errors'
import type { AppState } from '../app-state'
import type { Handlers } from '../host-ports'

export type SearchHandlers = Pick<
  Handlers,
  | 'search.page'
  | 'search.count'
  | 'search.facets'
  | 'search.analysisKeys'
  | 'insight.breakdown'
  | 'insight.trend'
  | 'search.values'
  | 'search.columns'
  | 'calls.get'
  | 'catalog.callTypes'
  | 'catalog.import'
  | 'catalog.save'
  | 'remote.search'
  | 'savedSearches.save'
  | 'savedSearches.remove'
>

/**
 * Searching: the local cache (works signed out, and answers empty with no account open),
 * the service live, and the saved searches.
 */
export function searchHandlers(state: AppState): SearchHandlers {
  const search = () => state.runtime?.search ?? null
  return {
    'search.count': async ({ query }) => {
      const s = search()
      // No account open: an empty answer that claims nothing is missing (there is nothing to sync into).
      if (s === null) return { total: 0, coverage: { complete: true, from: query.from, to: query.to, missing: [] } }
      return { total: s.count(query), coverage: s.coverage(query) }
    },
    'search.page': async ({ query, offset, limit, sortBy, columns }) =>
      search()?.page(query, offset, limit, { sortBy, columns }) ?? { offset, rows: [] },
    'search.columns': async () => search()?.resultColumns() ?? [],
    'search.facets': async ({ query, analysisKey, zone }) =>
      search()?.facets(query, analysisKey, zone ?? state.displayZone()) ?? { total: 0, perType: [], perDay: [], perValue: [] },
    'search.analysisKeys': async () => search()?.analysisKeys() ?? [],
    'insight.breakdown': async ({ query, column }) =>
      search()?.breakdown(query, column) ?? { column, numeric: false, total: 0, missing: 0, bars: [] },
    'insight.trend': async ({ query, column, measure, bucket, zone }) =>
      search()?.trend(query, column, measure, bucket, zone ?? state.displayZone()) ?? { column, measure, bucket, points: [] },
    'search.values': async ({ query, key, contains }) =>
      search()?.values(query, key, contains) ?? { key, numeric: false, items: 0, values: [], range: null },
    'calls.get': async ({ callId }) => search()?.get(callId) ?? null,
    'catalog.callTypes': async () => state.runtime?.cache.callTypes() ?? [],
    'catalog.import': async ({ name, text }) => {
      const cache = state.requireRuntime().cache
      const r = cache.importCallTypes(parseCallTypeFile(text, name), 'import')
      return { ...r, types: cache.callTypes() }
    },
    'catalog.save': async ({ types }) => {
      const cache = state.requireRuntime().cache
      const seen = new Set<string>()
      for (const t of types) {
        if (seen.has(foldTypeName(t.value))) throw new CallsightError('InvalidInput', `The call type "${t.value}" is listed twice.`)
        seen.add(foldTypeName(t.value))
      }
      cache.importCallTypes(types, 'edit')
      return cache.callTypes()
    },

    'remote.search': async ({ query, skip, take, includeAnalysis }) => {
      const rt = state.requireSignedIn()
      const runtime = state.requireRuntime()
      // Others may be spending the tenant's limit (the team worker): a 429 is waited out with
      // the seconds left shown in the search's status, a bounded number of times.
      const emit = (secondsLeft: number | null): void => state.platform.events.emit('search.rateWait', { secondsLeft })
      const guard = new RateWaitGuard(emit)
      const offLimited = runtime.onRateLimited((ms) => guard.rateLimited(ms))
      const offWaits = state.waits.subscribe((ms) => guard.waiting(ms))
      try {
        return await state.connectivity.track(remoteSearch(rt.session, query, skip, take, includeAnalysis, guard.signal))
      } catch (e) {
        throw guard.failure(e)
      } finally {
        offLimited()
        offWaits()
        guard.dispose()
      }
    },

    'savedSearches.save': async ({ name, query, relativeDays, id }) => {
      const s = state.settings()
      // A relative range keeps no instants: they would be stale by next week.
      const stored = relativeDays === undefined ? query : { ...query, from: null, to: null }
      const entry = {
        id: id ?? randomUUID(),
        name,
        query: stored,
        createdAt: state.platform.clock.now(),
        ...(relativeDays === undefined ? {} : { relativeDays })
      }
      const others = s.savedSearches.filter((x) => x.id !== entry.id)
      return state.saveSettings({ ...s, savedSearches: [...others, entry] }).savedSearches
    },
    'savedSearches.remove': async ({ id }) => {
      const s = state.settings()
      return state.saveSettings({ ...s, savedSearches: s.savedSearches.filter((x) => x.id !== id) }).savedSearches
    }
  }
}
