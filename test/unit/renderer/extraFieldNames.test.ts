import { describe, expect, it } from 'vitest'
import { columnLabel } from '../../../src/renderer/src/lib/columns'
import { exportExtraFields, extraFieldName, extraKeys, offeredInInsight } from '../../../src/renderer/src/lib/extraFieldNames'
import { en } from '../../../src/renderer/src/i18n/en'
import { tr } from '../../../src/renderer/src/i18n/tr'

const say = (labelKey: string, lang: 'tr' | 'en'): string => {
  let node: unknown = lang === 'tr' ? tr : en
  for (const part of labelKey.split('.')) node = (node as Record<string, unknown>)[part]
  return String(node)
}
const t = (key: string): string => say(key, 'en')

describe("the record's extra fields, named by the user", () => {
  const settings = { agentName: { nameTr: 'Temsilci', nameEn: 'Rep' }, durationSeconds: { facet: false, export: false } }

  it("uses the user's name in each language, else the app's name, else the key", () => {
    expect(extraFieldName('agentName', 'tr', settings, say)).toBe('Temsilci')
    expect(extraFieldName('agentName', 'en', settings, say)).toBe('Rep')
    expect(extraFieldName('durationSeconds', 'tr', settings, say)).toBe(say('fields.durationSeconds', 'tr'))
    expect(extraFieldName('queue', 'en', settings, say)).toBe('queue')
    expect(columnLabel({ column: 'extra:agentName', label: 'agentName' }, t, { agentName: 'Rep' })).toBe('Rep')
    expect(columnLabel({ column: 'extra:agentName', label: 'agentName' }, t)).toBe(say('fields.agentName', 'en'))
  })

  it('offers every field to Insight and the export unless the user took it out', () => {
    expect(offeredInInsight('agentName', settings)).toBe(true)
    expect(offeredInInsight('durationSeconds', settings)).toBe(false)
    const keys = extraKeys([{ column: 'title' }, { column: 'extra:agentName' }, { column: 'analysis:x' }, { column: 'extra:language' }])
    expect(keys).toEqual(['agentName', 'language'])
    expect(exportExtraFields(keys, new Set(['agentName', 'language']), 'tr', settings, say)).toEqual([
      { key: 'agentName', header: 'Temsilci' },
      { key: 'language', header: say('fields.language', 'tr') }
    ])
    // A duration is exported in seconds: its default header says so.
    expect(exportExtraFields(['durationSeconds'], new Set(['durationSeconds']), 'tr', settings, say)).toEqual([
      { key: 'durationSeconds', header: 'Süre (sn)' }
    ])
  })
})
