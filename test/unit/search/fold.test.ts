import { describe, expect, it } from 'vitest'
import { foldForIndex } from '../../../src/core/cache/fold'
import { parseText, toMatch } from '../../../src/core/search'
import { foldText } from '../../../src/shared/text/fold'

describe('foldForIndex', () => {
  it('folds exactly like the shared foldText', () => {
    const samples = ['İSTANBUL', 'ışık IŞIK', 'Şikâyet ÇAĞRI öğün ÜÇ', 'plain ASCII Text', 'Straße Øre Łódź Æon', 'e\u0301', '😀 İ 😀', 'ǅemal', 'ΣΊΣΥΦΟΣ', '', 'ｆｕｌｌ']
    for (const s of samples) expect(foldForIndex(s)).toBe(foldText(s))
  })
})

describe('parseText', () => {
  it('reads words, phrases and prefixes, the last word as typed', () => {
    expect(parseText('fatur')).toEqual({ elements: [{ tokens: ['fatur'], prefix: true }] })
    expect(parseText('fatura ')).toEqual({ elements: [{ tokens: ['fatura'], prefix: false }] })
    expect(parseText('fatur* kargo ')).toEqual({
      elements: [
        { tokens: ['fatur'], prefix: true },
        { tokens: ['kargo'], prefix: false }
      ]
    })
    expect(parseText('"Kargo GECİKTİ" iade').elements).toEqual([
      { tokens: ['kargo', 'gecikti'], prefix: false },
      { tokens: ['iade'], prefix: true }
    ])
    expect(parseText('"kargo gecikti').elements).toEqual([{ tokens: ['kargo', 'gecikti'], prefix: false }])
    expect(parseText('e-posta ').elements).toEqual([{ tokens: ['e', 'posta'], prefix: false }])
    expect(parseText('AND OR ( ) : * "').elements.map((e) => e.tokens)).toEqual([['and'], ['or']])
  })

  it('quotes every token so operators stay words', () => {
    expect(toMatch(parseText('NOT fatura'))).toBe('"not" AND "fatura"*')
    expect(toMatch(parseText('   '))).toBeNull()
    expect(toMatch(parseText('olumlu', { prefixLast: false }), 'analysis')).toBe('analysis : "olumlu"')
    expect(toMatch(parseText('fat'), null, () => ['fatura', 'faturasi'])).toBe('("fatura" OR "faturasi")')
  })
})
