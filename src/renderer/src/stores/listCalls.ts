import { defineStore } from 'pinia'
import { computed, ref, shallowRef } from 'vue'
import type { ReviewListItem } from '../../../shared/review'
import type { AppErrorInfo } from '../../../shared/errors'
import { call } from '../api'
import { toErrorInfo } from '../lib/errorMessage'
import { allSelection, clickRow, emptySelection, isSelected, selectedCount, selectedOffsets, type Selection } from '../lib/selection'

/** Rows shown at once: a list holds up to 100,000 calls, read a page at a time. */
export const LIST_PAGE = 100
/** The most items one read returns (the contract's limit). */
const READ_MAX = 1000

/**
 * Review mode's list of the open list's calls: one page of them, the row the keys move on
 * (the cursor) and the rows ticked for removal. Ticks are kept by position, as in the search
 * results, so a range or "all" over thousands of calls costs nothing until it is removed;
 * the ids are read only then, and that is what the confirmation counts.
 */
export const useListCallsStore = defineStore('listCalls', () => {
  const open = ref(false)
  const listId = ref<string | null>(null)
  const size = ref(0)
  /** Offset of the page shown. */
  const pageAt = ref(0)
  const rows = shallowRef<ReviewListItem[]>([])
  const cursor = ref(0)
  const selection = ref<Selection>(emptySelection())
  const error = ref<AppErrorInfo | null>(null)

  const count = computed(() => selectedCount(selection.value, size.value))
  const allTicked = computed(() => size.value > 0 && count.value === size.value)

  /** Reads the page holding `at`; a list opened anew starts with nothing ticked. */
  async function load(id: string, at = pageAt.value): Promise<void> {
    if (id !== listId.value) {
      listId.value = id
      selection.value = emptySelection()
      cursor.value = 0
      size.value = 0
    }
    const offset = Math.max(0, Math.floor(at / LIST_PAGE) * LIST_PAGE)
    try {
      error.value = null
      const got = await call('reviewLists.items', { id, offset, limit: LIST_PAGE })
      if (listId.value !== id) return
      // Calls came or went under the ticks (a team pull, a refused removal put back): a tick
      // is a position, and it would now name another call, so none stays.
      if (got.list.size !== size.value) selection.value = emptySelection()
      size.value = got.list.size
      // The list shrank under the page (a removal): show its last page instead.
      if (got.items.length === 0 && offset > 0 && got.list.size > 0) return load(id, got.list.size - 1)
      pageAt.value = offset
      rows.value = got.items
      cursor.value = Math.min(Math.max(cursor.value, 0), Math.max(0, size.value - 1))
    } catch (e) {
      error.value = toErrorInfo(e)
    }
  }

  /** Moves the cursor by `step` rows, reading the next or previous page when it leaves this one. */
  async function move(step: number): Promise<void> {
    if (!listId.value || size.value === 0) return
    const to = Math.min(size.value - 1, Math.max(0, cursor.value + step))
    cursor.value = to
    if (to < pageAt.value || to >= pageAt.value + LIST_PAGE) await load(listId.value, to)
  }

  async function page(step: number): Promise<void> {
    if (!listId.value) return
    const to = pageAt.value + step * LIST_PAGE
    if (to < 0 || to >= size.value) return
    cursor.value = to
    await load(listId.value, to)
  }

  /**
   * A tick on the row at `offset`: on its own it adds or drops that row; with shift it adds
   * the rows from the last one ticked to it.
   */
  function tick(offset: number, shift: boolean): void {
    selection.value = clickRow(selection.value, offset, { shift, toggle: true }, size.value)
    cursor.value = offset
  }

  function tickAll(): void {
    selection.value = allTicked.value ? emptySelection() : allSelection()
  }

  function clear(): void {
    selection.value = emptySelection()
  }

  const ticked = (offset: number): boolean => isSelected(selection.value, offset)

  /** How many ticked rows come before `at`: where the call at `at` moves once they are removed. */
  function tickedBefore(at: number): number {
    return selectedCount(selection.value, Math.min(at, size.value))
  }

  /** The ticked calls' ids, in the list's order, read page by page from the ranges. */
  async function tickedIds(): Promise<string[]> {
    const id = listId.value
    if (!id) return []
    const offsets = [...selectedOffsets(selection.value, size.value)]
    const ids: string[] = []
    let i = 0
    while (i < offsets.length) {
      const from = offsets[i]!
      const got = await call('reviewLists.items', { id, offset: from, limit: READ_MAX })
      const upTo = from + got.items.length
      for (; i < offsets.length && offsets[i]! < upTo; i++) {
        const item = got.items[offsets[i]! - from]
        if (item) ids.push(item.callId)
      }
      if (got.items.length === 0) break
    }
    return ids
  }

  function toggleOpen(value = !open.value): void {
    open.value = value
  }

  return {
    open,
    listId,
    size,
    pageAt,
    rows,
    cursor,
    selection,
    error,
    count,
    allTicked,
    load,
    move,
    page,
    tick,
    tickAll,
    clear,
    ticked,
    tickedBefore,
    tickedIds,
    toggleOpen
  }
})
