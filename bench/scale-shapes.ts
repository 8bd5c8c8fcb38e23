/**
 * The shapes the scale section times at each size: the query bench's (queryShapes), and the
 * slow shapes users met at 1,000,000 calls (a page at 300,000 right after its count, a 50 %
 * word over the last 7 days by relevance, an analysis equals with a 50 % word). Each is a
 * list of timed steps on one search; `prime` runs untimed first (the count a deep page
 * follows), so a sample is what the user waits for after the step before it.
 */
import type { LocalSearch } from '../src/core/search'
import { SearchQuery } from '../src/shared/domain'
import { queryShapes } from '../test/support/query-shapes'
import { COMMON_TERM, START_MS } from './search-data'
import { wordsNear } from './query'

const DAY = 24 * 3600 * 1000

export interface TimedStep {
  /** The row's name: "first page: <shape>", "count: <shape>", ... */
  metric: string
  target: number
  /** What the user did just before (untimed), on a search whose per-query memory was reset. */
  prime?: (s: LocalSearch) => void
  run: (s: LocalSearch) => unknown
  /** The plan that served it (explain), for the row's name. */
  plan?: (s: LocalSearch) => string
}

export interface ShapeWords {
  w1: string
  w2: string
  half: string
}

export function shapeWords(n: number): ShapeWords {
  const [w1, w2] = wordsNear(0.05, 2, n)
  const [half] = wordsNear(0.5, 1, n)
  return { w1: w1!, w2: w2!, half: half! }
}

/** The newest call's time of n generated calls (the generator spreads them over a year). */
export const END_MS = START_MS + 365 * DAY

const Q = (input: Parameters<typeof SearchQuery.parse>[0]): SearchQuery => SearchQuery.parse(input)

/** A 50 % word's page at 300,000, right after its count. */
export const DEEP_OFFSET = 300_000

export function slowShapes(w: ShapeWords): Array<[string, SearchQuery, 'deep' | 'page' | 'page+count']> {
  return [
    [`a 50% word "${w.half}", page at ${DEEP_OFFSET.toLocaleString('en')} right after its count`, Q({ text: w.half }), 'deep'],
    [
      `a 50% word "${w.half}", last 7 days, by relevance`,
      Q({ text: w.half, from: END_MS - 7 * DAY, to: END_MS, sort: 'relevance' }),
      'page'
    ],
    [`analysis equals (~15%) and a 50% word "language:en ${w.half}"`, Q({ text: `language:en ${w.half}` }), 'page+count']
  ]
}

const planOf =
  (q: SearchQuery, offset = 0) =>
  (s: LocalSearch): string =>
    s.explain(q, 100, offset).served.plan

/** Every timed step: the query bench's shapes (first page, count, facets) and the slow shapes. */
export function timedSteps(w: ShapeWords): TimedStep[] {
  const steps: TimedStep[] = []
  for (const [label, q] of queryShapes({ ...w, common: COMMON_TERM, end: END_MS })) {
    steps.push({ metric: `first page: ${label}`, target: 25, run: (s) => s.page(q, 0, 100), plan: planOf(q) })
    steps.push({ metric: `count: ${label}`, target: 100, run: (s) => s.count(q) })
    steps.push({ metric: `facets: ${label}`, target: 300, run: (s) => s.facets(q, 'sentiment', 'Europe/Istanbul') })
  }
  for (const [label, q, kind] of slowShapes(w)) {
    if (kind === 'deep') {
      steps.push({
        metric: `page: ${label}`,
        target: 25,
        prime: (s) => s.count(q),
        run: (s) => s.page(q, DEEP_OFFSET, 100),
        plan: (s) => {
          s.count(q)
          return planOf(q, DEEP_OFFSET)(s)
        }
      })
    } else {
      steps.push({ metric: `first page: ${label}`, target: 25, run: (s) => s.page(q, 0, 100), plan: planOf(q) })
      if (kind === 'page+count') steps.push({ metric: `count: ${label}`, target: 100, run: (s) => s.count(q) })
    }
  }
  return steps
}

/** As-you-type: each keystroke of a word is a query of the text typed so far; its first page is what the user waits for. */
export function keystrokes(w: ShapeWords): SearchQuery[][] {
  return [w.half, w.w1, `${w.w1} ${w.w2}`, COMMON_TERM].map((word) => {
    const out: SearchQuery[] = []
    for (let i = 1; i <= word.length; i++) if (word[i - 1] !== ' ') out.push(Q({ text: word.slice(0, i) }))
    return out
  })
}
