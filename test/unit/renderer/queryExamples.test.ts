import { describe, expect, it } from 'vitest'
import { analyzeQuery } from '../../../src/shared/query'
import { equalsKeys, fieldRef, queryExamples, suggestionsFor, type ExampleMaterial } from '../../../src/renderer/src/lib/queryExamples'

const sentiment = { key: 'sentiment', friendlyName: 'Duygu Durumu', numeric: false, calls: 900 }
const score = { key: 'agentScore', friendlyName: 'Temsilci Puanı', numeric: true, calls: 800 }
const material: ExampleMaterial = {
  keys: [sentiment, score],
  category: {
    key: sentiment,
    values: [
      { value: 'Negative', count: 400 },
      { value: 'Positive', count: 300 }
    ]
  },
  number: { key: score, min: 40, max: 100 },
  titles: ['Fatura itirazı - Diyarbakır', 'Yavaş internet şikayeti'],
  callId: '0001e240-1a2b-4c3d-8e4f-0123456789ab'
}

describe('the help built from the account’s data', () => {
  const rows = queryExamples(material)
  const all = rows.flatMap((r) => r.examples)

  it('uses the account’s names, values and numbers, never fixed ones', () => {
    expect(all).toContain('"Duygu Durumu":Negative')
    expect(all).toContain('sentiment:Negative')
    expect(all).toContain('"Temsilci Puanı">=70')
    expect(all).toContain('"Temsilci Puanı":55..85')
    expect(all).toContain('Fatura veya Yavaş')
    expect(all).toContain('"Fatura itirazı"')
    expect(all).toContain(material.callId)
    expect(all.join(' ')).not.toMatch(/duygu:olumsuz|csat|aht:/)
  })

  it('every example but the call ID parses and resolves against the account’s keys', () => {
    for (const ex of all.filter((e) => e !== material.callId)) {
      const r = analyzeQuery(ex, { keys: material.keys })
      expect({ ex, errors: r.errors }).toEqual({ ex, errors: [] })
      expect(r.node, ex).not.toBeNull()
    }
    expect(equalsKeys(analyzeQuery('"Duygu Durumu":Negative fatura', { keys: material.keys }).node)).toEqual(['sentiment'])
  })

  it('leaves out what the data cannot show, and quotes names with spaces', () => {
    const bare = queryExamples({ keys: [], category: null, number: null, titles: [], callId: null })
    expect(bare).toEqual([])
    expect(fieldRef({ key: 'csat', friendlyName: 'CSAT' })).toBe('CSAT')
    expect(fieldRef({ key: 'x', friendlyName: 'Bekletme Süresi (sn)' })).toBe('"Bekletme Süresi (sn)"')
  })
})

describe('the search box’s suggestions', () => {
  const values = { values: ['Positive', 'Neutral', 'Negative'], counts: [30, 20, 10] }
  const calls = (n: number) => `${n} calls`
  it('completes a key’s name, then its values with counts', () => {
    expect(suggestionsFor('fatura duy', material.keys, () => values, calls).items).toEqual([
      { text: 'fatura "Duygu Durumu":', label: 'Duygu Durumu · 900 calls' }
    ])
    expect(suggestionsFor('fatura "Duygu Durumu":ne', material.keys, () => values, calls).items).toEqual([
      { text: 'fatura "Duygu Durumu":Neutral', label: '20 calls' },
      { text: 'fatura "Duygu Durumu":Negative', label: '10 calls' }
    ])
    expect(suggestionsFor('-sentiment:', material.keys, () => values, calls).items.map((s) => s.text)).toEqual([
      '-sentiment:Positive',
      '-sentiment:Neutral',
      '-sentiment:Negative'
    ])
  })
  it('asks for a key’s values it has not read', () => {
    expect(suggestionsFor('sentiment:', material.keys, () => undefined, calls)).toEqual({ items: [], pendingKey: 'sentiment' })
  })
})
