import { createPinia, setActivePinia } from 'pinia'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { useAppStore } from '../../../src/renderer/src/stores/app'
import { useColumnsStore } from '../../../src/renderer/src/stores/columns'
import { useSearchStore } from '../../../src/renderer/src/stores/search'
import { teamQuery } from '../../../src/renderer/src/lib/teamSource'
import { teamCountText } from '../../../src/renderer/src/lib/teamCount'
import { i18n } from '../../../src/renderer/src/i18n'
import type { CallRow, SearchQuery, SessionState } from '../../../src/shared/domain'

/**
 * The search store's source switch against a bridge that records every request and answers
 * `team.search` from a list of rows (or with an error), as main would.
 */
interface Sent {
  channel: string
  request: Record<string, unknown>
}

function row(i: number): CallRow {
  return { callId: `c${i}`, callAt: 1_000_000 - i, callDate: '2026-01-05', title: `t${i}`, summaryPreview: '', analysisCount: 0 }
}

function bridge(
  teamRows: CallRow[],
  teamError: { code: string; message: string } | null = null,
  /** The exact count's answer waits for this, when given. */
  exactGate: Promise<void> | null = null
) {
  const sent: Sent[] = []
  const api = {
    invoke(channel: string, request: Record<string, unknown>): Promise<unknown> {
      sent.push({ channel, request })
      if (channel === 'team.search') {
        if (teamError) return Promise.resolve({ ok: false, error: teamError })
        const { offset, limit, count } = request as { offset: number; limit: number; count: 'estimate' | 'exact' | null }
        const page = { offset, rows: teamRows.slice(offset, offset + limit) }
        const n = teamRows.length
        // As core answers a large team cache: a rounded estimate first, the exact count after.
        if (count === 'estimate')
          return Promise.resolve({
            ok: true,
            value: { page, total: { kind: 'estimate', about: Math.round(n / 100) * 100, exactTimedOut: false }, unindexed: false }
          })
        const value = { page, total: count === 'exact' ? { kind: 'exact', n } : null, unindexed: false }
        if (count === 'exact' && exactGate) return exactGate.then(() => ({ ok: true, value }))
        return Promise.resolve({ ok: true, value })
      }
      if (channel === 'search.page') return Promise.resolve({ ok: true, value: { rows: [row(900)], cells: {} } })
      if (channel === 'search.count') return Promise.resolve({ ok: true, value: { total: 1, coverage: null } })
      return Promise.resolve({ ok: true, value: [] })
    },
    on(): () => void {
      return () => undefined
    }
  }
  return { api, sent, of: (channel: string) => sent.filter((s) => s.channel === channel) }
}

const TEAM_ACCOUNT = {
  id: 'a1',
  teamCache: { url: 'postgres://acme_reader@127.0.0.1:5432/team', schema: 'acme', sslMode: 'disable', sslRootCert: null }
}

function signIn(team: boolean): void {
  const account = team ? TEAM_ACCOUNT : { id: 'a2' }
  useAppStore().session = { status: 'signedIn', account } as unknown as SessionState
}

let b: ReturnType<typeof bridge>
function useBridge(x: ReturnType<typeof bridge>): void {
  b = x
  ;(globalThis as { window?: unknown }).window = { api: b.api }
}

/** The store's replies arrive over promises and the count after a short pause: wait for the count. */
async function settled(search: ReturnType<typeof useSearchStore>): Promise<void> {
  await vi.waitFor(() => expect(search.loading).toBe(false), { timeout: 5_000, interval: 10 })
}

beforeEach(() => {
  setActivePinia(createPinia())
})
afterEach(() => {
  delete (globalThis as { window?: unknown }).window
})

describe('search store: the team cache as a source', () => {
  it('answers the same query from team.search, paged and counted, by date and without review filters', async () => {
    useBridge(bridge(Array.from({ length: 250 }, (_, i) => row(i))))
    signIn(true)
    const search = useSearchStore()
    search.filters.text = 'fatura'
    search.filters.sort = 'relevance'
    search.filters.from = 1000
    search.filters.callTypes = ['Sales']
    search.filters.review.statuses = ['reviewed']
    search.setMode('team')
    await settled(search)

    expect(search.mode).toBe('team')
    expect(search.total).toBe(250)
    expect(search.shownTotal).toBe(250)
    expect(search.rowAt(0)?.callId).toBe('c0')
    // Paged as the local list is: a later page is asked for when scrolled to.
    await search.ensureRows(200, 210)
    expect(search.rowAt(205)?.callId).toBe('c205')
    const asked = b.of('team.search').map((s) => s.request as { query: SearchQuery; offset: number; count: string | null })
    expect(asked.map((a) => [a.offset, a.count])).toEqual(
      expect.arrayContaining([
        [0, null],
        [0, 'estimate'],
        [0, 'exact'],
        [200, null]
      ])
    )
    for (const a of asked) {
      expect(a.query).toMatchObject({ text: 'fatura', from: 1000, callTypes: ['Sales'], sort: 'date_desc' })
      expect(a.query.review).toBeUndefined()
    }
    // Nothing of it was asked of the local cache.
    expect(b.of('search.page').length + b.of('search.count').length).toBe(0)
    // The relevance order is the local index's: the filter moved to date, the highlight stays.
    expect(search.filters.sort).toBe('date_desc')
    expect(search.highlightTerms).toEqual(['fatura'])
  })

  it('counts in two steps: the count line shows the estimate as one, then the exact figure (en and tr)', async () => {
    let open = (): void => undefined
    const gate = new Promise<void>((resolve) => (open = resolve))
    useBridge(
      bridge(
        Array.from({ length: 317_482 }, (_, i) => row(i)),
        null,
        gate
      )
    )
    signIn(true)
    const search = useSearchStore()
    search.filters.text = 'fatura'
    search.setMode('team')
    await vi.waitFor(() => expect(search.teamCount).not.toBeNull(), { timeout: 5_000, interval: 10 })
    const line = (locale: 'en' | 'tr'): string => {
      i18n.global.locale.value = locale
      return teamCountText(search.teamCount!, i18n.global.t, locale)
    }
    expect(search.teamCount).toEqual({ kind: 'estimate', about: 317_500, exactTimedOut: false })
    expect(line('en')).toBe('≈ 317,500 (estimate)')
    expect(line('tr')).toBe('≈ 317.500 (tahmini)')
    // An estimate never sizes the list: only the first page's rows until the exact count lands.
    expect(search.total).toBeNull()
    expect(search.shownTotal).toBe(100)
    open()
    await settled(search)
    expect(search.teamCount).toEqual({ kind: 'exact', n: 317_482 })
    expect(line('en')).toBe('317,482 results')
    expect(line('tr')).toBe('317.482 sonuç')
    expect(search.total).toBe(317_482)
    i18n.global.locale.value = 'en'
  })

  it('an estimate whose exact count ran out of time says so in the count line', () => {
    const c = { kind: 'estimate', about: 52_000, exactTimedOut: true } as const
    i18n.global.locale.value = 'tr'
    expect(teamCountText(c, i18n.global.t, 'tr')).toBe('≈ 52.000 (tahmini: kesin sayım çok uzun sürdü; kesin sayı için aramayı daraltın)')
    i18n.global.locale.value = 'en'
    expect(teamCountText(c, i18n.global.t, 'en')).toMatch(/^≈ 52,000 \(estimate: the exact count took too long/)
  })

  it('shows an error of the team cache with its message instead of rows, never throwing', async () => {
    useBridge(bridge([], { code: 'InvalidInput', message: 'Search is not enabled on this team cache.' }))
    signIn(true)
    const search = useSearchStore()
    search.filters.text = 'fatura'
    search.setMode('team')
    await settled(search)
    expect(search.error?.message).toBe('Search is not enabled on this team cache.')
    expect(search.shownTotal).toBe(0)
  })

  it('searches locally when the account has no team cache', async () => {
    useBridge(bridge([row(1)]))
    signIn(false)
    const search = useSearchStore()
    search.setMode('team')
    await settled(search)
    expect(search.mode).toBe('local')
    expect(b.of('team.search')).toEqual([])
    expect(search.rowAt(0)?.callId).toBe('c900')
  })

  it("leaves a column's order for the date's on the team source", async () => {
    useBridge(bridge([row(1)]))
    signIn(true)
    const columns = useColumnsStore()
    columns.sortBy = { column: 'extra:agent', dir: 'asc' }
    const search = useSearchStore()
    search.setMode('team')
    await settled(search)
    expect(columns.sortBy).toBeNull()
  })
})

describe('teamQuery', () => {
  it('keeps the oldest-first order and the filters', () => {
    const q = { text: 'a', sort: 'date_asc', from: 1, to: 2, callTypes: ['X'] } as unknown as SearchQuery
    expect(teamQuery(q)).toEqual(q)
  })
})
