import { defineStore } from 'pinia'
import { ref } from 'vue'
import type { ExportProgress } from '../../../shared/domain'

/** The export dialog's visibility and the export in progress (one at a time). */
export const useExportStore = defineStore('export', () => {
  const visible = ref(false)
  const exportId = ref<string | null>(null)
  const file = ref<string | null>(null)
  const progress = ref<ExportProgress | null>(null)

  function open(): void {
    visible.value = true
  }

  return { visible, exportId, file, progress, open }
})
