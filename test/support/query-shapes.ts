import { SearchQuery, type SearchQueryInput } from '../../src/shared/domain'

/** The words a data set's shapes are built from: two words in about 5 % of calls, one in half, the common one, and the newest call's time. */
export interface ShapeWords {
  w1: string
  w2: string
  half: string
  common: string
  end: number
}

const DAY = 24 * 3600 * 1000

/**
 * The search language as analysts type it, one query per shape: short prefixes, relevance
 * over a week, AND / phrase / OR / NOT of 5 % words, analysis terms. The query bench measures
 * each; the plan tests assert how each is served.
 */
export function queryShapes(w: ShapeWords): Array<[string, SearchQuery]> {
  const Q = (input: SearchQueryInput): SearchQuery => SearchQuery.parse(input)
  const week = { from: w.end - 7 * DAY, to: w.end }
  const { w1, w2, half, common } = w
  return [
    ['one-letter prefix "i"', Q({ text: 'i' })],
    ['two-letter prefix "ka"', Q({ text: 'ka' })],
    [`common word "${common}", last 7 days, by relevance`, Q({ text: common, ...week, sort: 'relevance' })],
    [`"ka", last 7 days`, Q({ text: 'ka', ...week })],
    [`two 5% words "${w1} ${w2}"`, Q({ text: `${w1} ${w2}` })],
    [`phrase "\\"${w1} ${w2}\\""`, Q({ text: `"${w1} ${w2}"` })],
    [`OR "${w1} OR iptal"`, Q({ text: `${w1} OR iptal` })],
    [`NOT "${common} -${w1}"`, Q({ text: `${common} -${w1}` })],
    [`NOT alone "-${w1}"`, Q({ text: `-${w1}` })],
    [`mixed "(${w1} OR duygu:olumsuz) -${w2}"`, Q({ text: `(${w1} OR duygu:olumsuz) -${w2}` })],
    [`csat = 1 and a 50% word "csat:1 ${half}"`, Q({ text: `csat:1 ${half}` })],
    ['range and equals "duration:300..600 duygu:olumsuz"', Q({ text: 'duration:300..600 duygu:olumsuz' })],
    [`filter bar: a word and csat >= 4`, Q({ text: half, analysis: [{ kind: 'range', key: 'csat', min: 4, max: null }] })]
  ]
}
