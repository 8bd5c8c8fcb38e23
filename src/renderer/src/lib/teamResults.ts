import { ref, shallowRef } from 'vue'
import { exactOf, type CallRow, type SearchQuery, type TeamCount } from '../../../shared/domain'
import { teamCount, teamPage } from './teamSource'

/**
 * The team cache source's paging and counting, composed by the search store: pages as the
 * local list reads them, and the count in two steps. The estimate is shown as soon as it
 * lands (a sample: quick at any size); the exact count follows and replaces it, or, past its
 * budget in core, the estimate stays and says so. Only an exact count sizes the list.
 */
export function useTeamResults() {
  /** The team cache holds calls it has not indexed yet: its answer may miss some of them. */
  const unindexed = ref(false)
  /** The count line's figure: null while none has landed. */
  const count = shallowRef<TeamCount | null>(null)

  function fetcher(q: SearchQuery): (offset: number, limit: number) => Promise<CallRow[]> {
    return async (offset, limit) => {
      const page = await teamPage(q, offset, limit)
      unindexed.value = page.unindexed
      return page.rows
    }
  }

  /**
   * The estimate, then the exact count; stops as soon as `current()` says another query
   * took over. Resolves with the exact number, or null when there is none (cut short, or
   * past its budget).
   */
  async function countInSteps(q: SearchQuery, current: () => boolean): Promise<number | null> {
    count.value = null
    const first = await teamCount(q, 'estimate')
    if (!current()) return null
    count.value = first
    if (first.kind === 'exact') return first.n
    const exact = await teamCount(q, 'exact')
    if (!current()) return null
    count.value = exact
    return exactOf(exact)
  }

  function reset(): void {
    unindexed.value = false
    count.value = null
  }

  return { unindexed, count, fetcher, countInSteps, reset }
}
