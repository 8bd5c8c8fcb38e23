import { describe, expect, it } from 'vitest'
import { resolveLanguage, systemLocale } from '../../../src/renderer/src/lib/language'

describe("the language 'System' follows", () => {
  it("in browser mode, the browser's language, not the server's locale", () => {
    const serve = { electron: null, locale: 'en-US' }
    expect(resolveLanguage('system', systemLocale(serve, ['tr-TR', 'en-US']))).toBe('tr')
    expect(resolveLanguage('system', systemLocale({ ...serve, locale: 'tr-TR' }, ['en-GB']))).toBe('en')
  })

  it('in the desktop app, the OS locale', () => {
    expect(resolveLanguage('system', systemLocale({ electron: '39.0.0', locale: 'tr-TR' }, ['en-US']))).toBe('tr')
  })

  it('the server locale when the browser names none, English before anything is known', () => {
    expect(systemLocale({ electron: null, locale: 'tr-TR' }, [])).toBe('tr-TR')
    expect(systemLocale(null, ['tr-TR'])).toBe('en')
  })
})
