import { describe, expect, it } from 'vitest'
import { foldForIndex } from '../../../src/core/cache/fold'
import { parseText, toMatch } from '../../../src/core/search'
import { foldText } from '../../../src/shared/text/fold'

describe('foldForIndex', () => {
  it('folds exactly like the shared foldText', () => {
    const samples = ['İSTANBUL', 'ışık IŞIK', 'Şikâyet ÇAĞRI öğün ÜÇ', 'plain ASCII Text', 'Straße Øre Łódź Æon', 'e\u0301', '😀 İ 😀', 'ǅemal', 'ΣΊΣΥΦΟΣ', '', 'ｆｕｌｌ', 'a', 'Z', 'end İ', 'İ start', 'lone \ud83d high', 'high at end \ud83d', 'lone \ude00 low', '\ud83dA then a letter', '𝐀𝐁 math bold', 'x\u0000y']
    // And a random mix of the above, so runs and folds meet in every order.
    let seed = 7
    const rnd = (): number => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
    const pool = [...samples.join('')]
    for (let k = 0; k < 200; k++) samples.push(Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => pool[Math.floor(rnd() * pool.length)]!).join(''))
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
