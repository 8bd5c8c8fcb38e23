import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { ExportDownload, ExportProgress, SearchQueryInput } from '../../../shared/domain'

/** The export dialog's visibility and the export in progress (one at a time). */
export const useExportStore = defineStore('export', () => {
  const visible = ref(false)
  const exportId = ref<string | null>(null)
  const file = ref<string | null>(null)
  const progress = ref<ExportProgress | null>(null)
  /** Browser mode, a CSV: the download the browser receives while the export writes it. */
  const download = ref<ExportDownload | null>(null)
  /** Set when the dialog exports something other than the search's results (a review list). */
  const target = ref<{ query: SearchQueryInput; count: number } | null>(null)

  function open(): void {
    target.value = null
    visible.value = true
  }

  /** Opens the dialog for every call of `query` (e.g. a review list), not the search's. */
  function openFor(query: SearchQueryInput, count: number): void {
    target.value = { query, count }
    visible.value = true
  }

  return { visible, exportId, file, progress, download, target, open, openFor }
})
