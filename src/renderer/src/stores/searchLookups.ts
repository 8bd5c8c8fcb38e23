import { computed, ref } from 'vue'
import type { AnalysisKeyInfo, CallType } from '../../../shared/domain'
import { call } from '../api'
import { useColumnsStore } from './columns'

/**
 * What the search bar looks names up in: the cache's analysis keys, the call type catalog
 * and the record fields the service sends. Part of the search store (stores/search.ts).
 */
export function useSearchLookups() {
  const analysisKeys = ref<AnalysisKeyInfo[]>([])
  const keysLoaded = ref(false)
  const callTypes = ref<CallType[]>([])
  /** A call type as people read it: its Description, or its Value when it has none. */
  function typeName(value: string): string {
    return callTypes.value.find((c) => c.value === value)?.description || value
  }
  /** The call types for a multi-select: "Description (Value)". */
  const typeOptions = computed(() =>
    callTypes.value.map((c) => ({ label: c.description ? `${c.description} (${c.value})` : c.value, value: c.value }))
  )

  /** The record fields the service sends (agent, duration, …): the query language filters by them. */
  const recordFields = computed(() =>
    useColumnsStore()
      .available.filter((c) => c.column.startsWith('extra:'))
      .map((c) => c.column.slice('extra:'.length))
  )

  async function loadLookups(): Promise<void> {
    const [keys, types] = await Promise.allSettled([
      call('search.analysisKeys', {}),
      call('catalog.callTypes', {}),
      useColumnsStore().load()
    ])
    if (keys.status === 'fulfilled') {
      analysisKeys.value = keys.value
      keysLoaded.value = true
    }
    if (types.status === 'fulfilled') callTypes.value = types.value
  }

  return { analysisKeys, keysLoaded, callTypes, typeName, typeOptions, recordFields, loadLookups }
}
