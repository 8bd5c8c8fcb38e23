import { DateTime } from 'luxon'
import { describe, expect, it } from 'vitest'
import { migrateSavedSearch, migrateSavedSearches } from '../../../../src/core/app/saved-searches'
import { SavedSearch, Settings } from '../../../../src/shared/domain'

const ZONE = 'Europe/Istanbul'
/** 2026-11-10 15:20 in Istanbul: when the search was saved. */
const SAVED_AT = DateTime.fromISO('2026-11-10T15:20:00', { zone: ZONE }).toMillis()
const day = (iso: string): number => DateTime.fromISO(iso, { zone: ZONE }).toMillis()

const saved = (from: number | null, to: number | null, extra: Partial<SavedSearch> = {}): SavedSearch =>
  SavedSearch.parse({ id: 's1', name: 'İptal – son 30 gün', query: { text: 'iptal', from, to }, createdAt: SAVED_AT, ...extra })

describe('saved searches with relative ranges', () => {
  it('turns a stored "last 30 days" preset back into a relative range', () => {
    // The preset on 10 November: from the start of 12 October to the start of 11 November.
    const m = migrateSavedSearch(saved(day('2026-10-12T00:00'), day('2026-11-11T00:00')), ZONE)
    expect(m.relativeDays).toBe(30)
    expect(m.query.from).toBeNull()
    expect(m.query.to).toBeNull()
    expect(m.query.text).toBe('iptal')
    expect(SavedSearch.safeParse(m).success).toBe(true)
  })

  it('knows the 7- and 90-day presets too', () => {
    expect(migrateSavedSearch(saved(day('2026-11-04T00:00'), day('2026-11-11T00:00')), ZONE).relativeDays).toBe(7)
    expect(migrateSavedSearch(saved(day('2026-08-13T00:00'), day('2026-11-11T00:00')), ZONE).relativeDays).toBe(90)
  })

  it('keeps a picked span, an open range, and one already relative as they are', () => {
    const picked = saved(day('2026-10-01T00:00'), day('2026-10-15T00:00'))
    expect(migrateSavedSearch(picked, ZONE)).toBe(picked)
    // 30 days, but ending the day before it was saved: a picked span, not the preset.
    const shifted = saved(day('2026-10-11T00:00'), day('2026-11-10T00:00'))
    expect(migrateSavedSearch(shifted, ZONE)).toBe(shifted)
    const open = saved(null, null)
    expect(migrateSavedSearch(open, ZONE)).toBe(open)
    const relative = saved(null, null, { relativeDays: 30 })
    expect(migrateSavedSearch(relative, ZONE)).toBe(relative)
  })

  it('reads the range in the display zone the search bar used', () => {
    const s = saved(day('2026-10-12T00:00'), day('2026-11-11T00:00'))
    // Read in UTC the same instants are not day boundaries: not a preset there.
    expect(migrateSavedSearch(s, 'UTC')).toBe(s)
    const settings = Settings.parse({ displayZone: ZONE, savedSearches: [s] })
    expect(migrateSavedSearches(settings, 'UTC').savedSearches[0]!.relativeDays).toBe(30)
    const unchanged = Settings.parse({ savedSearches: [saved(null, null)] })
    expect(migrateSavedSearches(unchanged, ZONE)).toBe(unchanged)
  })
})
