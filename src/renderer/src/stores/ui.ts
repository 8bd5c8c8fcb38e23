import { defineStore } from 'pinia'
import { ref } from 'vue'

/** Cross-screen UI requests: keyboard and menu commands that another screen carries out. */
export const useUiStore = defineStore('ui', () => {
  const shortcutsVisible = ref(false)
  /** Bumped to ask the search bar to take focus (it may mount after the request). */
  const focusSearchTick = ref(0)

  function requestFocusSearch(): void {
    focusSearchTick.value++
  }

  return { shortcutsVisible, focusSearchTick, requestFocusSearch }
})
