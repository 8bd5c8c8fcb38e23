import { DateTime } from 'luxon'
import type { SavedSearch, Settings } from '../../shared/domain'

/** The presets the search bar has always offered; a stored range of one of them was one of them. */
const PRESET_DAYS = [7, 30, 90] as const

/**
 * Saved searches from before relative ranges stored "last 30 days" as the two instants it
 * meant on the day it was saved, so next week they showed old calls. A stored range that is
 * exactly a preset as the search bar made it on the day of saving — from the start of the
 * day N-1 days before, to the end of that day, in the display zone — was a preset: it
 * becomes relative again. Anything else (a picked span) stays as it was.
 */
export function migrateSavedSearch(saved: SavedSearch, zone: string): SavedSearch {
  if (saved.relativeDays !== undefined) return saved
  const { from, to } = saved.query
  if (from === null || to === null) return saved
  const savedDay = DateTime.fromMillis(saved.createdAt, { zone }).startOf('day')
  if (!savedDay.isValid || savedDay.plus({ days: 1 }).toMillis() !== to) return saved
  const days = PRESET_DAYS.find((n) => savedDay.minus({ days: n - 1 }).toMillis() === from)
  if (days === undefined) return saved
  return { ...saved, relativeDays: days, query: { ...saved.query, from: null, to: null } }
}

/** Settings with every saved search migrated; the same object when nothing changed. */
export function migrateSavedSearches(settings: Settings, systemZone: string): Settings {
  const zone = settings.displayZone === 'system' ? systemZone : settings.displayZone
  let changed = false
  const savedSearches = settings.savedSearches.map((s) => {
    const m = migrateSavedSearch(s, zone)
    if (m !== s) changed = true
    return m
  })
  return changed ? { ...settings, savedSearches } : settings
}
