import { describe, expect, it } from 'vitest'
import { resolveDark, resolveLanguage } from '../../../src/renderer/src/lib/language'
import { EN, TR, placeholders } from './messages'
import { i18n } from '../../../src/renderer/src/i18n'

describe('message files', () => {
  it('Turkish and English have exactly the same keys', () => {
    const missingInTr = [...EN.keys()].filter((k) => !TR.has(k))
    const missingInEn = [...TR.keys()].filter((k) => !EN.has(k))
    expect(missingInTr).toEqual([])
    expect(missingInEn).toEqual([])
    expect(EN.size).toBeGreaterThan(200)
  })

  it('each message has the same placeholders in both languages', () => {
    const mismatched = [...EN.entries()].filter(([k, v]) => placeholders(v).join() !== placeholders(TR.get(k) ?? '').join()).map(([k]) => k)
    expect(mismatched).toEqual([])
  })

  it('no message is empty, and none uses vue-i18n syntax characters by accident', () => {
    for (const [lang, messages] of [
      ['en', EN],
      ['tr', TR]
    ] as const) {
      for (const [key, text] of messages) {
        expect(text.trim(), `${lang}:${key}`).not.toBe('')
        // @ starts a linked message, $ and % are reserved: none is meant here.
        expect(/[@$%]/.test(text), `${lang}:${key} has a special character`).toBe(false)
        // | separates plural forms: each form says the number.
        if (text.includes('|')) for (const form of text.split('|')) expect(form, `${lang}:${key}`).toMatch(/\{count\}/)
        expect(/\{(?!\w+\})/.test(text), `${lang}:${key} has a stray brace`).toBe(false)
      }
    }
  })

  it('Turkish text is really Turkish where it matters', () => {
    expect(TR.get('signIn.demo')).not.toBe(EN.get('signIn.demo'))
    expect(TR.get('errors.IpNotAllowed')).toMatch(/IP/)
    expect(TR.get('nav.search')).toBe('Arama')
  })
})

describe('starting language and theme', () => {
  it("'system' follows the OS locale; an explicit choice wins", () => {
    expect(resolveLanguage('system', 'tr-TR')).toBe('tr')
    expect(resolveLanguage('system', 'TR')).toBe('tr')
    expect(resolveLanguage('system', 'en-US')).toBe('en')
    expect(resolveLanguage('system', 'de-DE')).toBe('en')
    expect(resolveLanguage('en', 'tr-TR')).toBe('en')
    expect(resolveLanguage('tr', 'en-US')).toBe('tr')
  })

  it("'system' theme follows the OS; light and dark override it", () => {
    expect(resolveDark('system', true)).toBe(true)
    expect(resolveDark('system', false)).toBe(false)
    expect(resolveDark('light', true)).toBe(false)
    expect(resolveDark('dark', false)).toBe(true)
  })
})

describe('plural forms', () => {
  const say = (lang: 'en' | 'tr', key: string, n: number): string => {
    i18n.global.locale.value = lang
    return i18n.global.t(key, { count: String(n) }, n)
  }

  it('says "1 result" and "2 results" in English, "1 sonuç" and "2 sonuç" in Turkish', () => {
    expect(say('en', 'search.total', 1)).toBe('1 result')
    expect(say('en', 'search.total', 2)).toBe('2 results')
    expect(say('en', 'search.total', 0)).toBe('0 results')
    expect(say('en', 'status.cacheCalls', 1)).toBe('1 call cached')
    expect(say('tr', 'search.total', 1)).toBe('1 sonuç')
    expect(say('tr', 'search.total', 7)).toBe('7 sonuç')
    expect(say('tr', 'status.cacheCalls', 7)).toBe(TR.get('status.cacheCalls')?.replace('{count}', '7'))
    i18n.global.locale.value = 'en'
  })
})
