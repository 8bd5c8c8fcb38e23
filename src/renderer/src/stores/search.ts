import { defineStore } from 'pinia'
import { computed, markRaw, reactive, ref, shallowRef } from 'vue'
import type { CallRecord, CallRow, QueryCoverage, RemotePage, SearchQuery } from '../../../shared/domain'
import type { AppErrorInfo } from '../../../shared/errors'
import { SERVICE_WINDOW } from '../../../shared/service-limits'
import { call, listen } from '../api'
import { presetRange } from '../lib/dateRange'
import { toErrorInfo } from '../lib/errorMessage'
import { PageCache } from '../lib/pageCache'
import { useTeamResults } from '../lib/teamResults'
import { analyzeQuery, positiveTerms, type QueryError } from '../../../shared/query'
import { buildQuery, emptyFilters, recordToRow, type SearchFilters } from '../lib/query'
import { rowNumber, termsToHighlight } from '../lib/serviceRows'
import { emptySelection, type Selection } from '../lib/selection'
import { useAppStore } from './app'
import { useColumnsStore } from './columns'
import { savedSearchActions } from './savedSearches'
import { useSearchLookups } from './searchLookups'
import { selectionActions } from './searchSelection'

/** Where a search is answered: this computer's cache, the service live, or the team cache in place. */
export type SearchMode = 'local' | 'service' | 'team'
export const PAGE_SIZE = 100
const SERVICE_DEFAULT_DAYS = 7
/**
 * How long a local query's first rows stay up before its count is asked for: a keystroke
 * within it sends no count for the text typed over (typing is ~100–300 ms a key).
 */
const COUNT_PAUSE_MS = 150

/** The current query, its result set (paged, bounded) and the selection over it. */
export const useSearchStore = defineStore('search', () => {
  const mode = ref<SearchMode>('local')
  const filters = reactive<SearchFilters>(emptyFilters())
  const query = computed<SearchQuery>(() => buildQuery(filters))
  /** The query the shown results belong to (filters may have moved on while debouncing). */
  const activeQuery = shallowRef<SearchQuery>(buildQuery(filters))
  /**
   * The query of the rows on screen. In local mode the rows of the query typed over stay
   * until the new query's first page replaces them in one render: the list is patched in
   * place instead of emptied and rebuilt, which is most of a keystroke's paint.
   */
  const shownQuery = shallowRef<SearchQuery>(activeQuery.value)

  const total = ref<number | null>(null)
  /**
   * Rows the list may show before the count lands: the first page's length. The first rows
   * of a new query paint as soon as their page arrives instead of waiting for the count.
   */
  const provisionalTotal = ref(0)
  /** Whether synced scopes answer the shown local query; null until counted, and in the other modes. */
  const coverage = shallowRef<QueryCoverage | null>(null)
  /** The cache's last sync when the shown local results were read: a later sync makes them stale. */
  const readAtSync = ref<number | null>(null)
  const loading = ref(false)
  const error = ref<AppErrorInfo | null>(null)
  /** Bumped when a page lands; rows are read through rowAt, which depends on it. */
  const version = ref(0)
  const selection = ref<Selection>(emptySelection())
  /** The keyboard's current row. */
  const cursor = ref<number | null>(null)
  /** When the reply to the current query arrived, for the paint-latency budget. */
  const repliedAt = ref<number | null>(null)

  /** The team cache source's pages and its two-step count. */
  const team = useTeamResults()

  const remoteSkip = ref(0)
  const remotePage = shallowRef<RemotePage | null>(null)

  const { analysisKeys, keysLoaded, callTypes, typeName, typeOptions, recordFields, loadLookups } = useSearchLookups()

  /**
   * What is wrong with the typed text, each with the span to underline (checked here, as
   * core checks it, so a bad query is shown at once and never sent). Until the keys are
   * known, an unknown field name is left for core to judge.
   */
  const textErrors = computed<QueryError[]>(() => {
    if (mode.value === 'service') return []
    const errors = analyzeQuery(filters.text, { keys: analysisKeys.value, recordFields: recordFields.value }).errors
    return keysLoaded.value ? errors : errors.filter((e) => e.code !== 'unknownField')
  })

  /** The folded terms the shown results matched by: words not under a NOT, analysis values asked for. */
  /** The shown results' query as a resolved tree (null when it has no text or does not resolve). */
  const activeNode = computed(
    () => analyzeQuery(shownQuery.value.text, { keys: analysisKeys.value, recordFields: recordFields.value }).node
  )
  const highlightTerms = computed<string[]>(() => termsToHighlight(mode.value, positiveTerms(activeNode.value)))
  /** The service matched on no text: nothing in its rows is marked as found by the query. */
  const matchNode = computed(() => (mode.value === 'service' ? null : activeNode.value))

  const cache = markRaw(new PageCache<CallRow>(async () => [], { pageSize: PAGE_SIZE, maxPages: 30 }))
  cache.onChange = () => version.value++
  cache.onError = (e) => (error.value = toErrorInfo(e))

  /** Bumped by every new request for rows; a reply to an older one is dropped. */
  let requestToken = 0

  const shownTotal = computed(() =>
    mode.value === 'service' ? (remotePage.value?.records.length ?? 0) : (total.value ?? provisionalTotal.value)
  )

  function rowAt(offset: number): CallRow | undefined {
    void version.value
    if (mode.value === 'service') {
      const r = remotePage.value?.records[offset]
      return r ? recordToRow(r) : undefined
    }
    return cache.get(offset)
  }

  /** The number shown for the row at `offset`: its place in the whole result (the service's window counts on). */
  function rowNumberAt(offset: number): number {
    return rowNumber(mode.value, remoteSkip.value, offset)
  }

  function remoteRecordAt(offset: number): CallRecord | undefined {
    return mode.value === 'service' ? remotePage.value?.records[offset] : undefined
  }

  async function ensureRows(from: number, to: number): Promise<void> {
    if (mode.value !== 'service') await cache.ensure(from, to)
  }

  /**
   * Pages of a query in the list's order (a chosen column's, else the query's), with the
   * chosen columns' values; from the team cache, by date and without columns.
   */
  function pageFetcher(q: SearchQuery): (offset: number, limit: number) => Promise<CallRow[]> {
    if (mode.value === 'team') return team.fetcher(q)
    const columns = useColumnsStore()
    const sortBy = columns.sortBy
    const chosen = [...columns.chosen]
    return async (offset, limit) => {
      const page = await call('search.page', { query: q, offset, limit, sortBy, columns: chosen })
      columns.remember(page.cells)
      return page.rows
    }
  }

  /**
   * The same result set read again (another column chosen): the count, the selection and the
   * cursor stay, since the rows and their order do not change.
   */
  function refreshRows(): void {
    if (mode.value !== 'local') return
    cache.reset(pageFetcher(activeQuery.value))
    version.value++
  }

  /** Runs the current filters: a fresh result set, a fresh selection. */
  async function run(): Promise<void> {
    // An account without a team cache (another one switched to) has no team source.
    if (mode.value === 'team' && useAppStore().account?.teamCache === undefined) mode.value = 'local'
    // A text that cannot run empties the list: rows under the error would belong to another query.
    if (textErrors.value.length > 0) {
      clearTo(query.value)
      return
    }
    const token = ++requestToken
    const q = query.value
    activeQuery.value = q
    selection.value = emptySelection()
    cursor.value = null
    error.value = null
    loading.value = true
    const started = Date.now()
    try {
      coverage.value = null
      if (mode.value !== 'service') {
        readAtSync.value = useAppStore().cache?.lastSyncAt ?? null
        // The first page before the count, and the count only if no keystroke came since:
        // core answers one request at a time, so a count for text already typed over would
        // hold up the next query's first rows.
        const fetcher = pageFetcher(q)
        const first = await fetcher(0, PAGE_SIZE)
        if (token !== requestToken) return
        // One synchronous swap: the rows, their query and the provisional total together.
        cache.reset(fetcher, first)
        total.value = null
        team.count.value = null
        provisionalTotal.value = first.length
        shownQuery.value = q
        version.value++
        // A count once sent runs to its end before the next keystroke's page is answered (up
        // to ~0.7 s for a one- or two-letter prefix at 1,000,000 calls): while keys keep
        // coming, none is sent.
        await new Promise((resolve) => setTimeout(resolve, COUNT_PAUSE_MS))
        if (token !== requestToken) return
        if (mode.value === 'team') {
          const n = await team.countInSteps(q, () => token === requestToken)
          if (token !== requestToken) return
          total.value = n
        } else {
          const count = await call('search.count', { query: q })
          if (token !== requestToken) return
          total.value = count.total
          coverage.value = count.coverage
        }
      } else {
        shownQuery.value = q
        remoteSkip.value = 0
        await fetchRemote(token, q)
      }
      repliedAt.value = Date.now()
      lastLatencyMs.value = repliedAt.value - started
    } catch (e) {
      if (token !== requestToken) return
      error.value = toErrorInfo(e)
      // No rows of a query the bar no longer shows: the list empties under the error.
      if (shownQuery.value !== q && mode.value !== 'service') {
        cache.reset(async () => [])
        total.value = null
        team.count.value = null
        provisionalTotal.value = 0
        shownQuery.value = q
        version.value++
      }
    } finally {
      if (token === requestToken) loading.value = false
    }
  }
  const lastLatencyMs = ref<number | null>(null)

  /** No rows, for a query that cannot run: the list shows nothing under the bar's error. */
  function clearTo(q: SearchQuery): void {
    ++requestToken
    activeQuery.value = q
    shownQuery.value = q
    selection.value = emptySelection()
    cursor.value = null
    remotePage.value = null
    cache.reset(async () => [])
    total.value = 0
    team.count.value = null
    provisionalTotal.value = 0
    coverage.value = null
    loading.value = false
    version.value++
  }

  /** Seconds the live search still waits for the service's limit (others spend it); null when not waiting. */
  const rateWaitSeconds = ref<number | null>(null)

  async function fetchRemote(token: number, q: SearchQuery): Promise<void> {
    const off = listen('search.rateWait', (p) => (rateWaitSeconds.value = p.secondsLeft))
    let page
    try {
      page = await call('remote.search', { query: q, skip: remoteSkip.value, take: PAGE_SIZE, includeAnalysis: true })
    } finally {
      off()
      rateWaitSeconds.value = null
    }
    if (token !== requestToken) return
    remotePage.value = page
    version.value++
  }

  async function remotePageStep(direction: 1 | -1): Promise<void> {
    const next = remoteSkip.value + direction * PAGE_SIZE
    if (next < 0 || next >= SERVICE_WINDOW) return
    const token = ++requestToken
    remoteSkip.value = next
    selection.value = emptySelection()
    cursor.value = null
    loading.value = true
    error.value = null
    try {
      await fetchRemote(token, activeQuery.value)
    } catch (e) {
      if (token === requestToken) error.value = toErrorInfo(e)
    } finally {
      if (token === requestToken) loading.value = false
    }
  }

  function setMode(m: SearchMode): void {
    if (mode.value === m) return
    mode.value = m
    remotePage.value = null
    coverage.value = null
    team.reset()
    // Local rows kept from before the service was searched are not the query shown now.
    cache.reset(async () => [])
    total.value = null
    team.count.value = null
    provisionalTotal.value = 0
    // The service cannot search without a range; a week is a quick, useful default.
    if (m === 'service' && (filters.from === null || filters.to === null)) {
      const range = presetRange(SERVICE_DEFAULT_DAYS, useAppStore().zone, Date.now())
      filters.from = range.from
      filters.to = range.to
      filters.relativeDays = SERVICE_DEFAULT_DAYS
    }
    // The team cache sorts by date only; a column's order is the local index's.
    if (m === 'team') {
      if (filters.sort === 'relevance') filters.sort = 'date_desc'
      useColumnsStore().clearSort()
    }
    void run()
  }

  function resetFilters(): void {
    Object.assign(filters, emptyFilters())
  }

  /** Sets the date range; `days` when it is a "last N days" preset. */
  function setRange(r: { from: number | null; to: number | null; days?: number }): void {
    filters.from = r.from
    filters.to = r.to
    filters.relativeDays = r.days ?? null
  }

  const { selectedTotal, click, openAt, selectAll, clearSelection, exportSelection } = selectionActions({
    selection,
    cursor,
    shownTotal,
    mode,
    remotePage,
    activeQuery
  })
  const { applySaved, saveCurrent, removeSaved } = savedSearchActions(filters, () => query.value)

  return {
    mode,
    filters,
    query,
    activeQuery,
    shownQuery,
    total,
    coverage,
    readAtSync,
    loading,
    error,
    version,
    selection,
    cursor,
    repliedAt,
    lastLatencyMs,
    remoteSkip,
    remotePage,
    teamUnindexed: team.unindexed,
    teamCount: team.count,
    rateWaitSeconds,
    analysisKeys,
    keysLoaded,
    textErrors,
    recordFields,
    highlightTerms,
    activeNode,
    callTypes,
    typeName,
    typeOptions,
    shownTotal,
    selectedTotal,
    cache,
    rowAt,
    remoteRecordAt,
    rowNumberAt,
    matchNode,
    ensureRows,
    loadLookups,
    run,
    remotePageStep,
    setMode,
    click,
    selectAll,
    openAt,
    refreshRows,
    clearSelection,
    exportSelection,
    resetFilters,
    applySaved,
    setRange,
    saveCurrent,
    removeSaved
  }
})
