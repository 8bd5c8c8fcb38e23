import { createPinia, setActivePinia } from 'pinia'
import { beforeEach, describe, expect, it } from 'vitest'
import { useUiStore } from '../../../src/renderer/src/stores/ui'

describe('the request to focus the search bar', () => {
  beforeEach(() => setActivePinia(createPinia()))

  it('is carried out once per request, by whichever takes it first (the mounted bar or the one mounting)', () => {
    const ui = useUiStore()
    expect(ui.takeFocusRequest()).toBe(false)
    ui.requestFocusSearch()
    expect(ui.takeFocusRequest()).toBe(true)
    // Coming back to the search screen later does not take the focus again.
    expect(ui.takeFocusRequest()).toBe(false)
    ui.requestFocusSearch()
    ui.requestFocusSearch()
    expect(ui.takeFocusRequest()).toBe(true)
    expect(ui.takeFocusRequest()).toBe(false)
  })
})
