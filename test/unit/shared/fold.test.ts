import { describe, expect, it } from 'vitest'
import { foldText, foldWithMap, queryTerms, segmentText } from '../../../src/shared/text/fold'

describe('Turkish folding', () => {
  it.each([
    ['istanbul', 'İSTANBUL'],
    ['sikayet', 'şikayet'],
    ['ISIK', 'ışık'],
    ['iptal', 'İPTAL'],
    ['Çağrı', 'CAGRI'],
    ['ÖDEME', 'odeme'],
    ['Ünal', 'unal']
  ])('%s and %s fold alike', (a, b) => {
    expect(foldText(a)).toBe(foldText(b))
  })

  it('keeps different words apart', () => {
    expect(foldText('kasa')).not.toBe(foldText('kısa')) // "kisa"
    expect(foldText('iade')).toBe('iade')
  })

  it('maps folded positions back onto the original, even for decomposed input', () => {
    const raw = 'Ş\u0327ikâyet İptal' // S + combining cedilla written twice, on purpose
    const { folded, map } = foldWithMap(raw)
    const at = folded.indexOf('iptal')
    expect(at).toBeGreaterThan(0)
    expect(raw.slice(map[at], map[at + 5])).toBe('İptal')
  })

  it('segments hits and masked tokens as text, never as markup', () => {
    const segs = segmentText('Müşteri <b>İPTAL</b> istedi, tel [MASKED].', queryTerms('iptal'))
    expect(segs).toEqual([
      { text: 'Müşteri <b>', kind: 'plain' },
      { text: 'İPTAL', kind: 'hit' },
      { text: '</b> istedi, tel ', kind: 'plain' },
      { text: '[MASKED]', kind: 'masked' },
      { text: '.', kind: 'plain' }
    ])
  })

  it('highlights prefixes at word starts only', () => {
    const hits = segmentText('fatura faturası defatura', ['fatura']).filter((s) => s.kind === 'hit')
    expect(hits.map((h) => h.text)).toEqual(['fatura', 'fatura'])
  })
})
