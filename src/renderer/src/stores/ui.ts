import { defineStore } from 'pinia'
import { ref } from 'vue'

/** Cross-screen UI requests: keyboard and menu commands that another screen carries out. */
export const useUiStore = defineStore('ui', () => {
  const shortcutsVisible = ref(false)
  /** Bumped to ask the search bar to take focus (it may mount after the request). */
  const focusSearchTick = ref(0)
  /** The last request the search bar carried out: each request focuses it once. */
  let focusTaken = 0

  function requestFocusSearch(): void {
    focusSearchTick.value++
  }

  /** Whether a request to focus the search bar waits; taking it carries it out (once). */
  function takeFocusRequest(): boolean {
    if (focusTaken === focusSearchTick.value) return false
    focusTaken = focusSearchTick.value
    return true
  }

  return { shortcutsVisible, focusSearchTick, requestFocusSearch, takeFocusRequest }
})
