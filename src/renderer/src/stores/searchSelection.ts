import { computed, type ComputedRef, type Ref, type ShallowRef } from 'vue'
import type { ExportSelection, RemotePage, SearchQuery } from '../../../shared/domain'
import { allSelection, clickRow, emptySelection, openRow, selectedCount, type ClickModifiers, type Selection } from '../lib/selection'
import { useColumnsStore } from './columns'
import type { SearchMode } from './search'

/** The search store's state a selection reads and moves (stores/search.ts). */
export interface SelectionState {
  selection: Ref<Selection>
  /** The keyboard's current row. */
  cursor: Ref<number | null>
  shownTotal: ComputedRef<number>
  mode: Ref<SearchMode>
  remotePage: ShallowRef<RemotePage | null>
  activeQuery: ShallowRef<SearchQuery>
}

/** The selection over the shown results: clicks, select all, and what an export of it sends. */
export function selectionActions({ selection, cursor, shownTotal, mode, remotePage, activeQuery }: SelectionState) {
  const selectedTotal = computed(() => selectedCount(selection.value, shownTotal.value))

  function click(offset: number, mods: ClickModifiers): void {
    selection.value = clickRow(selection.value, offset, mods, shownTotal.value)
    cursor.value = offset
  }

  /** A plain click opens the call: the cursor and a shift range's anchor move, the selection stays. */
  function openAt(offset: number): void {
    selection.value = openRow(selection.value, offset)
    cursor.value = offset
  }

  function selectAll(): void {
    selection.value = allSelection()
  }

  function clearSelection(): void {
    selection.value = emptySelection()
  }

  /**
   * What an export of the explicit selection sends: in local mode the offset ranges over the
   * shown query, as they are (core walks them; no ids are gathered here); in service mode
   * the ids of the page in memory. "All results" never comes here: it is exported as the query.
   */
  function exportSelection(): ExportSelection {
    const sel = selection.value
    if (mode.value === 'service') {
      const records = remotePage.value?.records ?? []
      const ids: string[] = []
      for (const [s, e] of sel.all ? [[0, records.length - 1] as const] : sel.ranges)
        for (let i = s; i <= e; i++) {
          const r = records[i]
          if (r) ids.push(r.callId)
        }
      return { kind: 'ids', ids }
    }
    const sortBy = useColumnsStore().sortBy
    return { kind: 'ranges', query: activeQuery.value, ranges: sel.ranges.map(([s, e]) => [s, e]), ...(sortBy ? { sortBy } : {}) }
  }

  return { selectedTotal, click, openAt, selectAll, clearSelection, exportSelection }
}
