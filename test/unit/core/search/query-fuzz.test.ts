import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { compileQuery, prefixesOf, type QueryCatalog } from '../../../../src/core/search/query/compile'
import { CallsightError } from '../../../../src/core/errors'
import { SearchQuery } from '../../../../src/shared/domain'
import { analyzeQuery, CallText, evaluate, matchedItems, positiveTerms } from '../../../../src/shared/query'
import { queryWork } from '../../../../src/shared/query/work'
import { prng } from '../../../support/prng'
import { buildFixture, type Fixture } from './fixture'

/**
 * Random queries from the language's own pieces and some garbage, up to the 500-character
 * limit: parsing never throws, compiling throws only InvalidInput (the query error as core
 * reports it), and the steps taken (shared/query/work.ts) stay linear in the length. The
 * limit makes a blow-up throw as soon as it passes the bound, so one shows as a failure here
 * and never as a test that runs for minutes.
 */
const PIECES = [
  'fatura',
  'iade',
  'a',
  'b',
  'ı',
  'ka',
  'İPTAL',
  'ışık',
  'şikayet',
  'Çağrı',
  'ÖDEME',
  'müşteri',
  'e-posta',
  '10:30',
  '"',
  '"kargo gecikti"',
  '"',
  'OR',
  'OR',
  'AND',
  'NOT',
  '-',
  '-',
  '(',
  '(',
  '(',
  ')',
  ')',
  ')',
  'duygu:olumsuz',
  'Duygu:"çok iyi"',
  'sentiment:nötr',
  'title:fatura',
  'başlık:iade',
  'summary:"kargo',
  'note:x',
  'not:y',
  'skor>=5',
  'skor>90',
  'score<5',
  'skor<=3,5',
  'skor:20..35',
  'score:..3',
  'score:95..',
  'skor:3..1',
  'skor:abc',
  'skor>x',
  'temsilci:"temsilci 3"',
  'unknown:x',
  'x:',
  'title>=3',
  '..',
  'a..b',
  '1..2',
  '*',
  'fat*',
  '>=',
  '=',
  ':',
  ',',
  '.'
]
const GARBAGE = ['\u0000', '\t', '\n', '\u00a0', '🙂', '\ud800', '\\', "'", '`', '$', '%', '{', '}', '[', ']', '|', '&', '^', '~', '+', '#']

const KEYS = [
  { key: 'sentiment', friendlyName: 'Duygu', numeric: false },
  { key: 'score', friendlyName: 'Skor', numeric: true },
  { key: 'agent', friendlyName: 'Temsilci', numeric: false }
]
const CATALOG: QueryCatalog = {
  scopes: [],
  keyIds: new Map([
    ['sentiment', [1]],
    ['score', [2]],
    ['agent', [3]]
  ]),
  keys: KEYS,
  expansions: new Map([['fat', ['fatura', 'faturasi']]])
}
const CALL = new CallText({
  title: 'Fatura iadesi',
  summary: 'Müşteri kargo gecikti dedi, İPTAL istedi',
  analysis: [
    { key: 'sentiment', value: 'olumsuz' },
    { key: 'score', value: '42' }
  ]
})
const num = (v: string): number | null => (Number.isFinite(Number(v)) ? Number(v) : null)

const bound = (text: string): number => 8 * text.length + 64

/** Terms that resolve against KEYS (the pieces above also hold ones that cannot). */
const TERMS = [
  'fatura',
  'iade',
  'a',
  'ı',
  'ka',
  'İPTAL',
  'ışık',
  'Çağrı',
  'e-posta',
  '"kargo gecikti"',
  'fat*',
  'duygu:olumsuz',
  'sentiment:nötr',
  'title:fatura',
  'başlık:iade',
  'skor>=5',
  'score<5',
  'skor:20..35',
  'score:..3',
  'temsilci:"temsilci 3"'
]

/** A query from the grammar: groups, OR, AND, negations, nested as deep as it likes; mostly valid. */
function grammarQuery(r: () => number, depth = 0): string {
  const pick = r()
  const term = (): string => TERMS[Math.floor(r() * TERMS.length)]!
  if (depth > 60 || pick < 0.3) return term()
  if (pick < 0.45) return `${r() < 0.5 ? '-' : 'NOT '}${r() < 0.5 ? term() : `(${grammarQuery(r, depth + 1)})`}`
  if (pick < 0.65) return `(${grammarQuery(r, depth + 1)} OR ${grammarQuery(r, depth + 1)})`
  if (pick < 0.8) return `${grammarQuery(r, depth + 1)} ${r() < 0.3 ? 'AND ' : ''}${grammarQuery(r, depth + 1)}`
  // The reported shape: an OR whose other side is a negation and a group.
  return `(${term()} OR -${term()} ${grammarQuery(r, depth + 1)})`
}

function randomQuery(r: () => number): string {
  if (r() < 0.5) {
    let q = grammarQuery(r)
    while (q.length < 40 && r() < 0.8) q += ` ${grammarQuery(r)}`
    return q.slice(0, 500)
  }
  const target = Math.floor(r() ** 2 * 520)
  let out = ''
  while (out.length < target) {
    const g = r()
    const piece = g < 0.85 ? PIECES[Math.floor(r() * PIECES.length)]! : GARBAGE[Math.floor(r() * GARBAGE.length)]!
    // Mostly spaced, sometimes glued to the last piece: `-(`, `a)`, `x:"`.
    out += (r() < 0.75 ? ' ' : '') + piece
  }
  return out.slice(0, 500)
}

/** Parse, resolve and compile, and what the renderer does with the tree; the only error allowed is InvalidInput. */
function pipeline(text: string): void {
  const analyzed = analyzeQuery(text, { keys: KEYS })
  prefixesOf(text, KEYS)
  if (analyzed.node !== null) {
    evaluate(analyzed.node, CALL, num)
    positiveTerms(analyzed.node)
    matchedItems(analyzed.node, CALL.call.analysis, num)
  }
  try {
    compileQuery(SearchQuery.parse({ text, results: 'all' }), CATALOG)
  } catch (e) {
    if (!(e instanceof CallsightError) || e.code !== 'InvalidInput') throw e
    expect(analyzed.errors.length).toBeGreaterThan(0)
  }
}

describe('random queries', () => {
  let fx: Fixture
  let search: LocalSearch
  beforeAll(() => {
    fx = buildFixture(150, 9)
    search = createSearch(fx.cache)
  })
  afterAll(() => {
    queryWork.limit = Number.POSITIVE_INFINITY
    fx.close()
  })

  it('parse and compile without throwing anything but InvalidInput, in steps linear in the length', () => {
    const r = prng(20261129)
    let slowest = { ms: 0, text: '' }
    let refused = 0
    let longest = 0
    for (let i = 0; i < 3000; i++) {
      const text = randomQuery(r)
      longest = Math.max(longest, text.length)
      queryWork.steps = 0
      queryWork.limit = bound(text)
      const t = performance.now()
      try {
        pipeline(text)
      } catch (e) {
        throw new Error(`query ${JSON.stringify(text)}: ${String(e)}`, { cause: e })
      } finally {
        queryWork.limit = Number.POSITIVE_INFINITY
      }
      const ms = performance.now() - t
      if (ms > slowest.ms) slowest = { ms, text }
      if (analyzeQuery(text, { keys: KEYS }).errors.length > 0) refused++
    }
    console.log(
      `3000 random queries up to ${longest} characters, ${refused} refused; slowest ${slowest.ms.toFixed(1)} ms: ${JSON.stringify(slowest.text.slice(0, 80))}…`
    )
    // Both kinds were generated (or the test proves little about one of them).
    expect(refused).toBeGreaterThan(300)
    expect(refused).toBeLessThan(2700)
    expect(longest).toBe(500)
  })

  it('are counted by the local search (SQL and the bitmap evaluator) or refused as InvalidInput', () => {
    const r = prng(77)
    let counted = 0
    for (let i = 0; i < 300; i++) {
      const text = randomQuery(r)
      const q = SearchQuery.parse({ text, results: 'all' })
      try {
        search.count(q)
        counted++
      } catch (e) {
        if (!(e instanceof CallsightError) || e.code !== 'InvalidInput')
          throw new Error(`query ${JSON.stringify(text)}: ${String(e)}`, { cause: e })
      }
    }
    expect(counted).toBeGreaterThan(30)
  })
})
