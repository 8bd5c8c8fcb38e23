import { defineStore } from 'pinia'
import { computed, ref, shallowRef } from 'vue'
import type { CellValue, ColumnInfo, ColumnSort, ResultColumn, RowCells } from '../../../shared/domain'
import { call } from '../api'
import { useAppStore } from './app'
import { offeredInInsight, ownName } from '../lib/extraFieldNames'

/** Cells kept for rows shown recently; the page cache keeps 30 pages of 100. */
const CELLS_KEPT = 4000

/**
 * The results list's chosen columns (kept per account in the settings), the column it is
 * sorted by, and the chosen columns' values of the rows fetched so far.
 */
export const useColumnsStore = defineStore('columns', () => {
  const app = useAppStore()
  /** What can be chosen, for the account's cache. */
  const available = ref<ColumnInfo[]>([])
  /** Sorting by a chosen column; null: the query's own order (date or relevance). */
  const sortBy = ref<ColumnSort | null>(null)
  const cells = shallowRef(new Map<string, Record<string, CellValue>>())

  /** The account's settings of its extra fields (names, Insight, export). */
  const extraSettings = computed(() => {
    const id = app.account?.id
    return (id ? app.settings?.extraFields?.[id] : undefined) ?? {}
  })
  /** The names the user gave extra fields in the UI language, by key: headers say them. */
  const extraNames = computed<Record<string, string>>(() => {
    const out: Record<string, string> = {}
    for (const key of Object.keys(extraSettings.value)) {
      const own = ownName(key, app.language, extraSettings.value)
      if (own) out[key] = own
    }
    return out
  })
  /** What Insight offers to break down and chart: every column but the extra fields the user took out. */
  const offered = computed(() =>
    available.value.filter((c) => !c.column.startsWith('extra:') || offeredInInsight(c.column.slice(6), extraSettings.value))
  )

  const chosen = computed<ResultColumn[]>(() => {
    const id = app.account?.id
    return (id ? app.settings?.resultColumns?.[id] : undefined) ?? []
  })

  /** The account's remembered sort, while its column is still chosen. */
  function remembered(): ColumnSort | null {
    const id = app.account?.id
    const sort = id ? (app.settings?.resultSort?.[id] ?? null) : null
    return sort && chosen.value.includes(sort.column) ? { ...sort } : null
  }
  sortBy.value = remembered()

  async function load(): Promise<void> {
    try {
      available.value = await call('search.columns', {})
    } catch {
      available.value = []
    }
  }

  async function choose(columns: ResultColumn[]): Promise<void> {
    const id = app.account?.id
    if (!id) return
    // A column no longer shown cannot stay the sort.
    if (sortBy.value && !columns.includes(sortBy.value.column)) setSort(null)
    await app.updateSettings({ resultColumns: { accountId: id, columns } })
  }

  /** Sort by a column: first descending for numbers, ascending for text; again: the other way. */
  function toggleSort(column: ResultColumn): void {
    const numeric = available.value.find((c) => c.column === column)?.numeric ?? false
    const current = sortBy.value
    if (current?.column === column) setSort({ column, dir: current.dir === 'asc' ? 'desc' : 'asc' })
    else setSort({ column, dir: numeric ? 'desc' : 'asc' })
  }

  function clearSort(): void {
    setSort(null)
  }

  /** The sort, remembered for the account (as its columns are) so the list opens sorted as it was left. */
  function setSort(sort: ColumnSort | null): void {
    sortBy.value = sort
    const id = app.account?.id
    if (id) void app.updateSettings({ resultSort: { accountId: id, sort } }).catch(() => undefined)
  }

  function remember(page: RowCells | undefined): void {
    if (!page) return
    const next = cells.value.size > CELLS_KEPT ? new Map<string, Record<string, CellValue>>() : new Map(cells.value)
    for (const [callId, cell] of Object.entries(page)) next.set(callId, cell)
    cells.value = next
  }

  function cellOf(callId: string, column: ResultColumn): CellValue | undefined {
    return cells.value.get(callId)?.[column]
  }

  /** A new account: its own columns and its own remembered sort, no cells. */
  function reset(): void {
    sortBy.value = remembered()
    cells.value = new Map()
    available.value = []
  }

  return {
    available,
    offered,
    extraSettings,
    extraNames,
    sortBy,
    chosen,
    cells,
    load,
    choose,
    toggleSort,
    clearSort,
    remember,
    cellOf,
    reset
  }
})
