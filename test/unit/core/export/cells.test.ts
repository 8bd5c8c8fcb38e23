import { describe, expect, it } from 'vitest'
import { neutralizeFormula, parseRealNumber } from '../../../../src/core/export/cells'

describe('neutralizeFormula', () => {
  it.each(['=1+1', '+1', '-1+2', '@SUM(A1)', '\t=1', '\rCR', '\nLF', '＝1', '＋1', '－1', '＠x'])('prefixes a quote to %j', (text) => {
    expect(neutralizeFormula(text)).toBe(`'${text}`)
  })

  it.each([
    ['Özet\r=1+1', "Özet\r'=1+1"],
    ['Özet\n=2+2', "Özet\n'=2+2"],
    ['Özet\r\n+SUM(A1)', "Özet\r\n'+SUM(A1)"],
    ['a\n\n-1\n@x\n\t=1', "a\n\n'-1\n'@x\n'\t=1"],
    ['\n=1', "'\n'=1"],
    ['\r\n=1', "'\r\n'=1"],
    ['Satır\n＝1', "Satır\n'＝1"]
  ])('quotes a trigger after a line break inside %j', (text, safe) => {
    expect(neutralizeFormula(text)).toBe(safe)
  })

  it.each(['İlk satır\nikinci satır', 'a\r\nb', 'a\n =1', "a\n'=1", 'a\n\nb'])('leaves lines without a trigger alone: %j', (text) => {
    expect(neutralizeFormula(text)).toBe(text)
  })

  it.each(['', 'Fatura', ' =1', "'=1", '1+1', 'Çağrı = 1', '[MASKED]'])('leaves %j alone', (text) => {
    expect(neutralizeFormula(text)).toBe(text)
  })
})

describe('parseRealNumber', () => {
  it.each([
    ['0', 0],
    ['42', 42],
    ['-3.5', -3.5],
    ['0.10', 0.1],
    ['123456789012345', 123456789012345],
    ['-0.000001', -0.000001]
  ])('reads %j as a number', (text, value) => {
    const cell = parseRealNumber(text)
    expect(cell?.value).toBe(value)
    expect(cell?.text).toBe(text)
  })

  it.each(['', '-5 TL', '=1+1', '+5', '1e5', '007', '1,5', '1 000', '.5', '5.', '-', 'NaN', 'Infinity', '1234567890123456', '0x10', ' 1'])(
    'keeps %j as text',
    (text) => {
      expect(parseRealNumber(text)).toBeNull()
    }
  )
})
