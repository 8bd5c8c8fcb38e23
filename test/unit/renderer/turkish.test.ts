import { describe, expect, it } from 'vitest'
import { extraEntries, formatClockDuration, languageName } from '../../../src/renderer/src/lib/extraFields'
import { formatCount, formatDuration, formatPercent, formatShortDay, intlLocale } from '../../../src/renderer/src/lib/format'
import { firstDayOfWeek, pickerWords, primeLocale, type PickerWords } from '../../../src/renderer/src/lib/primevueLocale'
import { EN, TR } from './messages'

const TR_LOCALE = intlLocale('tr')
const EN_LOCALE = intlLocale('en')

const words = (messages: Map<string, string>): PickerWords =>
  pickerWords((key, params) => (messages.get(key) ?? `missing ${key}`).replace(/\{(\w+)\}/g, (_, name: string) => params?.[name] ?? ''))

describe('numbers, percentages and durations in the UI language', () => {
  it('writes thousands and percentages the Turkish way', () => {
    expect(formatCount(1400, TR_LOCALE)).toBe('1.400')
    expect(formatCount(1400, EN_LOCALE)).toBe('1,400')
    expect(formatPercent(100, TR_LOCALE)).toBe('%100')
    expect(formatPercent(86.7, TR_LOCALE)).toBe('%86,7')
    expect(formatPercent(86.7, EN_LOCALE)).toBe('86.7%')
  })

  it('names duration units in Turkish, unambiguously', () => {
    // ICU versions differ on the abbreviation's full stop; the units are what matter.
    expect(formatDuration(245, TR_LOCALE)).toMatch(/^4 dk\.? 05 sn\.?$/)
    expect(formatDuration(3720, TR_LOCALE)).toMatch(/^1 sa\.? 02 dk\.?$/)
    expect(formatDuration(245, EN_LOCALE)).toBe('4m 05s')
  })

  it('labels chart days with the locale month name', () => {
    expect(formatShortDay('2026-11-23', TR_LOCALE)).toBe('23 Kas')
    expect(formatShortDay('2026-11-23', EN_LOCALE)).toBe('23 Nov')
  })
})

describe("PrimeVue's words", () => {
  it('are Turkish month and day names, Monday first, "Bugün" for today', () => {
    const loc = primeLocale(TR_LOCALE, words(TR))
    expect(loc.monthNames[10]).toBe('Kasım')
    expect(loc.monthNamesShort[0]).toBe('Oca')
    expect(loc.dayNames[0]).toBe('Pazar')
    expect(loc.dayNames[1]).toBe('Pazartesi')
    expect(loc.dayNamesMin).toEqual(['Paz', 'Pzt', 'Sal', 'Çar', 'Per', 'Cum', 'Cmt'])
    expect(loc.firstDayOfWeek).toBe(1)
    expect(loc.today).toBe('Bugün')
    expect(loc.clear).toBe('Temizle')
    expect(loc.selectionMessage).toBe('{0} seçili')
  })

  it('are English in English, and every Turkish word differs from the English one', () => {
    const en = primeLocale(EN_LOCALE, words(EN))
    const tr = primeLocale(TR_LOCALE, words(TR))
    expect(en.monthNames[10]).toBe('November')
    expect(en.today).toBe('Today')
    for (const k of ['today', 'clear', 'emptyFilterMessage', 'chooseDate', 'prevMonth'] as const) expect(tr[k]).not.toBe(en[k])
    expect(firstDayOfWeek('tr-TR')).toBe(1)
  })
})

describe('other fields, readable', () => {
  it('gives known fields a name and a unit, and keeps unknown ones raw', () => {
    const entries = extraEntries({ durationSeconds: 75, agentName: 'Ayşe Yılmaz', language: 'tr-TR', queue: { id: 3 } }, TR_LOCALE)
    expect(entries).toEqual([
      { key: 'durationSeconds', labelKey: 'fields.durationSeconds', value: '1:15', raw: false },
      { key: 'agentName', labelKey: 'fields.agentName', value: 'Ayşe Yılmaz', raw: false },
      { key: 'language', labelKey: 'fields.language', value: languageName('tr-TR', TR_LOCALE), raw: false },
      { key: 'queue', labelKey: null, value: '{"id":3}', raw: true }
    ])
    expect(languageName('tr-TR', TR_LOCALE)).toMatch(/^Türkçe/)
    for (const e of entries) if (e.labelKey) expect(TR.get(e.labelKey)).toBeTruthy()
  })

  it('writes durations as m:ss, hours when needed', () => {
    expect(formatClockDuration(0)).toBe('0:00')
    expect(formatClockDuration(75)).toBe('1:15')
    expect(formatClockDuration(3725)).toBe('1:02:05')
  })
})
