import type { SavedSearch, SearchQuery } from '../../../shared/domain'
import { call } from '../api'
import { presetRange } from '../lib/dateRange'
import { filtersFromQuery, type SearchFilters } from '../lib/query'
import { useAppStore } from './app'

/**
 * The saved searches as the search store uses them: applied to its filters, saved from its
 * query, removed; the list itself lives in the settings.
 */
export function savedSearchActions(filters: SearchFilters, query: () => SearchQuery) {
  /** A relative saved search is read anew: "last 30 days" means the last 30 days from today. */
  function applySaved(saved: SavedSearch): void {
    const next = filtersFromQuery(saved.query)
    if (saved.relativeDays !== undefined) {
      const range = presetRange(saved.relativeDays, useAppStore().zone, Date.now())
      Object.assign(next, { from: range.from, to: range.to, relativeDays: saved.relativeDays })
    }
    Object.assign(filters, next)
  }

  async function saveCurrent(name: string): Promise<void> {
    const relativeDays = filters.relativeDays ?? undefined
    const list = await call('savedSearches.save', { name, query: query(), ...(relativeDays === undefined ? {} : { relativeDays }) })
    const app = useAppStore()
    if (app.settings) app.settings = { ...app.settings, savedSearches: list }
  }

  async function removeSaved(id: string): Promise<void> {
    const list = await call('savedSearches.remove', { id })
    const app = useAppStore()
    if (app.settings) app.settings = { ...app.settings, savedSearches: list }
  }

  return { applySaved, saveCurrent, removeSaved }
}
