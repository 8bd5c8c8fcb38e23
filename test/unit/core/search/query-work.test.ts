import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createSearch, type LocalSearch } from '../../../../src/core/search'
import { compileQuery, type QueryCatalog } from '../../../../src/core/search/query/compile'
import { CallsightError } from '../../../../src/core/errors'
import { SearchQuery } from '../../../../src/shared/domain'
import { analyzeQuery, parseQuery } from '../../../../src/shared/query'
import { queryWork } from '../../../../src/shared/query/work'
import { buildFixture, type Fixture } from './fixture'
import { EN, TR } from '../../renderer/messages'

/**
 * The work a query costs, counted in steps (shared/query/work.ts: lexemes, parser calls,
 * resolved nodes, SQL parts asked for, bitmap nodes visited), never in time. A compile that
 * walks a subtree again per parent doubles per nesting level: the limit set below stops it
 * at once instead of letting it run for minutes.
 */
const KEYS = [
  { key: 'sentiment', friendlyName: 'Duygu', numeric: false },
  { key: 'score', friendlyName: 'Skor', numeric: true }
]
const CATALOG: QueryCatalog = {
  scopes: [],
  keyIds: new Map([
    ['sentiment', [1]],
    ['score', [2]]
  ]),
  keys: KEYS,
  expansions: new Map()
}

/** Linear in the text: a few steps per character (a term is at least one character and a space). */
export const bound = (text: string): number => 8 * text.length + 64

function counted(text: string, run: () => void): number {
  queryWork.steps = 0
  queryWork.limit = bound(text)
  try {
    run()
  } finally {
    queryWork.limit = Number.POSITIVE_INFINITY
  }
  return queryWork.steps
}

/** The reported shape: `(a OR -b ` n times, closed or not. */
const nested = (n: number, unit = '(a OR -b ', closed = true): string => unit.repeat(n) + (closed ? ')'.repeat(n) : '')

function compile(text: string): { error: CallsightError | null } {
  try {
    compileQuery(SearchQuery.parse({ text, results: 'all' }), CATALOG)
    return { error: null }
  } catch (e) {
    if (e instanceof CallsightError && e.code === 'InvalidInput') return { error: e }
    throw e
  }
}

afterEach(() => {
  queryWork.limit = Number.POSITIVE_INFINITY
})

describe('the query compiler does work linear in the text', () => {
  it.each([
    ['the reported shape, n = 22', nested(22)],
    ['the reported shape, n = 40', nested(40)],
    ['with analysis terms, which make predicates', nested(18, '(duygu:olumsuz OR -skor>5 ')],
    ['text and predicates alternating', nested(18, '(a OR -skor>5 -b ')],
    ['negated groups', nested(30, '-(a OR b ')]
  ])('%s compiles', (_label, text) => {
    expect(text.length).toBeLessThanOrEqual(500)
    let result: { error: CallsightError | null } = { error: null }
    const steps = counted(text, () => (result = compile(text)))
    expect(result.error).toBeNull()
    expect(steps).toBeLessThanOrEqual(bound(text))
  })

  it.each([
    ['the reported shape up to 500 characters', nested(50)],
    ['unclosed, 500 characters', nested(55, '(a OR -b ', false).slice(0, 500)],
    ['a run of NOTs', 'NOT '.repeat(124) + 'a'],
    ['250 opening parentheses', '('.repeat(250)],
    ['operators only', 'OR AND '.repeat(71)],
    ['a flat list of 250 terms', 'a '.repeat(250)]
  ])('%s is refused or compiles, within the bound', (_label, text) => {
    expect(text.length).toBeLessThanOrEqual(500)
    const steps = counted(text, () => compile(text))
    expect(steps).toBeLessThanOrEqual(bound(text))
  })

  it('refuses a tree of more than 200 nodes as too complex, in either language', () => {
    const text = nested(41)
    const errors = analyzeQuery(text, { keys: KEYS }).errors
    expect(errors.map((e) => e.code)).toContain('tooComplex')
    expect(compile(text).error?.message).toMatch(/too complex/)
    // The app shows it by the code, in the user's language.
    expect(EN.get('queryError.tooComplex')).toMatch(/too complex/)
    expect(TR.get('queryError.tooComplex')).toMatch(/çok karmaşık/)
    // 200 words and the AND over them are 201 nodes.
    expect(parseQuery('a '.repeat(199)).errors).toEqual([])
    expect(parseQuery('a '.repeat(200)).errors).toMatchObject([{ code: 'tooComplex', span: { start: 0, end: 400 } }])
  })

  it('reads a long run of NOTs without one call per NOT', () => {
    // 198 NOTs around one word: 199 nodes, one below the cap, the tree 199 deep.
    const text = '-NOT '.repeat(99) + 'a'
    const steps = counted(text, () => compile(text))
    expect(steps).toBeLessThanOrEqual(bound(text))
    expect(compile(text).error).toBeNull()
    expect(parseQuery('NOT NOT ' + text).errors).toMatchObject([{ code: 'tooComplex' }])
    expect(parseQuery('NOT NOT NOT a').node).toMatchObject({
      kind: 'not',
      item: { kind: 'not', item: { kind: 'not', item: { kind: 'text' } } }
    })
  })
})

/**
 * Through the local search itself (what search.page, search.count and search.facets call):
 * on a real SQLite cache, with the bitmap evaluator visiting every node of a mixed tree.
 */
describe('local search applies the same bound and cap', () => {
  let fx: Fixture
  let search: LocalSearch
  beforeAll(() => {
    fx = buildFixture(200, 5)
    search = createSearch(fx.cache)
  })
  afterAll(() => fx.close())

  it.each([
    ['the reported shape, 40 deep (all text: one FTS5 expression)', nested(40)],
    ['with analysis terms (predicates and probes)', nested(18, '(duygu:olumsuz OR -skor>5 ')],
    ['NOTs 99 deep around a group', '-NOT '.repeat(90) + '(a OR -skor>5)']
  ])('counts, pages and facets %s in linear work', (_label, text) => {
    const q = SearchQuery.parse({ text, results: 'all' })
    // The cache's own catalog reads (prefix expansions) are steps too; three questions, three bounds.
    const steps = counted(text.repeat(3), () => {
      search.count(q)
      search.page(q, 0, 20)
      search.facets(q, 'sentiment', 'UTC')
    })
    expect(steps).toBeLessThanOrEqual(bound(text.repeat(3)))
  })

  it('refuses a too complex query before reading anything, for page, count and facets', () => {
    const q = SearchQuery.parse({ text: nested(50), results: 'all' })
    for (const ask of [() => search.count(q), () => search.page(q, 0, 20), () => search.facets(q, 'sentiment', 'UTC')]) {
      expect(ask).toThrow(CallsightError)
      expect(ask).toThrow(/too complex/)
    }
  })
})
