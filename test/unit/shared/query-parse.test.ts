import { describe, expect, it } from 'vitest'
import {
  analyzeQuery,
  callIdOf,
  describeQueryError,
  parseQuery,
  underline,
  unknownValues,
  type KeyRef,
  type QueryErrorCode
} from '../../../src/shared/query'

const KEYS: KeyRef[] = [
  { key: 'sentiment', friendlyName: 'Duygu', numeric: false },
  { key: 'csat', friendlyName: 'Müşteri Memnuniyeti', numeric: true },
  { key: 'keywords', friendlyName: 'Anahtar Kelimeler', numeric: false }
]
const analyze = (text: string) => analyzeQuery(text, { keys: KEYS })

describe('parseQuery', () => {
  it('reads words as prefixes, quoted phrases as exact, folded', () => {
    expect(parseQuery('Fatur').node).toEqual({ kind: 'text', tokens: ['fatur'], prefix: true, span: { start: 0, end: 5 } })
    expect(parseQuery('"Kargo GECİKTİ"').node).toMatchObject({ kind: 'text', tokens: ['kargo', 'gecikti'], prefix: false })
    expect(parseQuery('e-posta').node).toMatchObject({ kind: 'text', tokens: ['e', 'posta'], prefix: true })
    // Typing a phrase is not an error on the way: an unclosed quote runs to the end.
    expect(parseQuery('"kargo gec')).toMatchObject({ node: { tokens: ['kargo', 'gec'], prefix: false }, errors: [] })
    expect(parseQuery('  ').node).toBeNull()
    expect(parseQuery('10:30').node).toMatchObject({ kind: 'text', tokens: ['10', '30'] })
  })

  it('gives OR the lowest precedence, then AND, then - / NOT', () => {
    const n = parseQuery('a b OR -c NOT d').node
    expect(n).toMatchObject({
      kind: 'or',
      items: [
        { kind: 'and', items: [{ tokens: ['a'] }, { tokens: ['b'] }] },
        {
          kind: 'and',
          items: [
            { kind: 'not', item: { tokens: ['c'] } },
            { kind: 'not', item: { tokens: ['d'] } }
          ]
        }
      ]
    })
    expect(parseQuery('x (a OR b)').node).toMatchObject({ kind: 'and', items: [{ tokens: ['x'] }, { kind: 'or' }] })
    // Lower-case operators are words.
  })

  it('reads field terms: name, operator, value, ranges', () => {
    expect(parseQuery('title:"a b"').node).toMatchObject({ kind: 'field', name: 'title', op: ':', value: { kind: 'phrase', raw: 'a b' } })
    expect(parseQuery('aht:300..600').node).toMatchObject({ value: { kind: 'range', min: 300, max: 600 } })
    expect(parseQuery('aht:..6,5').node).toMatchObject({ value: { kind: 'range', min: null, max: 6.5 } })
    expect(parseQuery('csat>=4').node).toMatchObject({ op: '>=', value: { kind: 'word', raw: '4' } })
  })

  const errorCases: Array<[string, QueryErrorCode, string]> = [
    ['fatura (iade', 'unbalancedOpen', '('],
    ['fatura) iade', 'unbalancedClose', ')'],
    ['a () b', 'emptyGroup', '()'],
    ['OR fatura', 'danglingOperator', 'OR'],
    ['fatura OR', 'danglingOperator', 'OR'],
    ['fatura OR OR iade', 'danglingOperator', 'OR'],
    ['fatura AND', 'danglingOperator', 'AND'],
    ['fatura NOT', 'danglingNot', 'NOT'],
    ['title:', 'missingValue', 'title:'],
    ['csat>=iyi', 'notANumber', 'iyi'],
    ['aht:600..300', 'badRange', '600..300'],
    ['aht:x..5', 'notANumber', 'x..5']
  ]
  it.each(errorCases)('%s → %s, underlining %s', (text, code, under) => {
    const r = parseQuery(text)
    expect(r.errors[0]?.code).toBe(code)
    const { start, end } = r.errors[0]!.span
    expect(text.slice(start, end)).toBe(under)
    expect(describeQueryError(r.errors[0]!)).not.toMatch(/\{subject\}/)
  })

  it('never throws, whatever is typed', () => {
    let seed = 3
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    const pool = ['(', ')', '"', '-', ':', '..', '>=', '<', 'OR', 'AND', 'NOT', ' ', 'a', 'İ', 'title', 'duygu', '5', '*', '😀', '\u0000']
    for (let i = 0; i < 3000; i++) {
      const text = Array.from({ length: Math.floor(rnd() * 12) }, () => pool[Math.floor(rnd() * pool.length)]!).join('')
      const r = analyze(text)
      for (const e of r.errors) {
        expect(e.span.start).toBeGreaterThanOrEqual(0)
        expect(e.span.end).toBeLessThanOrEqual(text.length)
        expect(e.span.end).toBeGreaterThan(e.span.start)
      }
    }
  })
})

describe('resolveQuery', () => {
  it('finds keys by key or friendly name, Turkish-folded, spaces as underscores or quoted away', () => {
    expect(analyze('duygu:olumsuz').node).toMatchObject({ kind: 'equals', key: 'sentiment', value: 'olumsuz', folded: 'olumsuz' })
    expect(analyze('SENTIMENT:Olumsuz').node).toMatchObject({ kind: 'equals', key: 'sentiment', folded: 'olumsuz' })
    expect(analyze('anahtar_kelimeler:ödeme').node).toMatchObject({ kind: 'equals', key: 'keywords', folded: 'odeme' })
    expect(analyze('müşterimemnuniyeti>=4').node).toMatchObject({ kind: 'range', key: 'csat', min: { value: 4, strict: false }, max: null })
    expect(analyze('csat>4').node).toMatchObject({ kind: 'range', min: { value: 4, strict: true } })
    expect(analyze('csat:4').node).toMatchObject({ kind: 'range', min: { value: 4, strict: false }, max: { value: 4, strict: false } })
    expect(analyze('Başlık:iade').node).toMatchObject({ kind: 'text', field: 'title', tokens: ['iade'], prefix: true })
    expect(analyze('özet:"kargo geç"').node).toMatchObject({ kind: 'text', field: 'summary', tokens: ['kargo', 'gec'], prefix: false })
  })

  it('says which name is unknown, and that notes need annotations', () => {
    const r = analyze('fatura nope:x')
    expect(r.node).toBeNull()
    expect(r.errors).toEqual([{ code: 'unknownField', span: { start: 7, end: 11 }, subject: 'nope' }])
    expect(underline('fatura nope:x', r.errors[0]!)).toBe('fatura nope:x\n       ^^^^')
    expect(analyze('note:x').errors[0]?.code).toBe('fieldUnavailable')
    expect(analyzeQuery('note:x', { keys: KEYS, extraFields: ['note'] }).node).toMatchObject({ kind: 'text', field: 'note' })
    expect(analyze('title>=3').errors[0]?.code).toBe('notComparable')
  })
})

describe('operators in either language and case', () => {
  const or = { kind: 'or', items: [{ tokens: ['fatura'] }, { tokens: ['iptal'] }] }
  it.each([
    'fatura or iptal',
    'fatura OR iptal',
    'fatura veya iptal',
    'fatura VEYA iptal',
    'fatura Veya iptal',
    'fatura | iptal',
    'fatura|iptal'
  ])('%s is OR', (text) => {
    expect(parseQuery(text)).toMatchObject({ node: or, errors: [] })
  })
  it.each(['fatura and iptal', 'fatura ve iptal', 'fatura VE iptal', 'fatura AND iptal'])('%s is AND', (text) => {
    expect(parseQuery(text)).toMatchObject({ node: { kind: 'and', items: [{ tokens: ['fatura'] }, { tokens: ['iptal'] }] }, errors: [] })
  })
  it.each(['fatura not iptal', 'fatura değil iptal', 'fatura DEĞİL iptal', 'fatura degil iptal', 'fatura -iptal'])('%s negates', (text) => {
    expect(parseQuery(text)).toMatchObject({
      node: { kind: 'and', items: [{ tokens: ['fatura'] }, { kind: 'not', item: { tokens: ['iptal'] } }] },
      errors: []
    })
  })
  it('an operator word is searched for when quoted', () => {
    expect(parseQuery('"ve"').node).toMatchObject({ kind: 'text', tokens: ['ve'], prefix: false })
    // Inside a longer word an operator word is only letters of it.
    expect(parseQuery('veri').node).toMatchObject({ kind: 'text', tokens: ['veri'] })
  })
})

describe('field names with spaces, values against the data', () => {
  const DEMO: KeyRef[] = [{ key: 'sentiment', friendlyName: 'Duygu Durumu', numeric: false }]
  it('a quoted friendly name names the key, folded', () => {
    for (const text of ['"duygu durumu":negative', '"DUYGU DURUMU":Negative', 'duygu_durumu:negative', 'sentiment:NEGATIVE']) {
      expect(analyzeQuery(text, { keys: DEMO })).toMatchObject({
        node: { kind: 'equals', key: 'sentiment', folded: 'negative' },
        errors: []
      })
    }
    expect(analyzeQuery('"duygu durumu":"very negative" fatura', { keys: DEMO })).toMatchObject({
      node: { kind: 'and', items: [{ kind: 'equals', key: 'sentiment', folded: 'very negative' }, { tokens: ['fatura'] }] }
    })
    // A quoted phrase not followed by an operator stays a phrase.
    expect(parseQuery('"duygu durumu" negative').node).toMatchObject({ kind: 'and', items: [{ prefix: false }, { prefix: true }] })
  })
  it('a value no call has is named, with the values there are', () => {
    const known = () => ({ values: ['Positive', 'Neutral', 'Negative'], complete: true })
    const node = analyzeQuery('sentiment:olumsuz OR sentiment:negative', { keys: DEMO }).node
    expect(unknownValues(node, DEMO, known)).toEqual([
      {
        key: 'sentiment',
        field: 'Duygu Durumu',
        value: 'olumsuz',
        values: ['Positive', 'Neutral', 'Negative'],
        span: { start: 0, end: 17 }
      }
    ])
    // An incomplete list judges nothing: a rarer value may exist.
    expect(unknownValues(node, DEMO, () => ({ values: ['Positive'], complete: false }))).toEqual([])
  })
})

describe('a call ID as the whole query', () => {
  const id = '0001e240-1a2b-4c3d-8e4f-0123456789ab'
  it('is recognised pasted or as id:', () => {
    expect(callIdOf(id)).toBe(id)
    expect(callIdOf(`  ${id.toUpperCase()} `)).toBe(id.toUpperCase())
    expect(callIdOf(`id:${id}`)).toBe(id)
    expect(callIdOf('id:"abc-1"')).toBe('abc-1')
    expect(callIdOf(`${id} fatura`)).toBeNull()
    expect(callIdOf('fatura')).toBeNull()
    expect(analyzeQuery(id, { keys: [] })).toEqual({ node: null, errors: [], callId: id })
  })
})
