import { choosePlan } from './plan/plan'
import type { Prepared, SearchContext } from './search-context'
import { countSql } from './query/sql'

/** A prepared query's count, remembered with its state. */
export function countOf(ctx: SearchContext, p: Prepared): number {
  const { q, state, estimate } = p
  const plan = choosePlan(q, estimate, ctx.catalog.totalCalls(), { for: 'count' })
  if (plan.kind === 'nothing') return 0
  if (state.count !== null) return state.count
  const listed = (): number | null => {
    const m = ctx.matchesOf(p)
    return ctx.countFromBytes ? m.count() : (m.list()?.length ?? null)
  }
  switch (plan.kind) {
    case 'counted':
      state.count = plan.n
      break
    case 'match-list': {
      const bitmaps = ctx.bitmaps
      const fts = bitmaps?.ftsOnly(p.query, q, p.catalog, ctx.catalog.totalCalls()) ?? null
      // A short prefix ("i", "ka") is counted from its kept set (read now when not kept: its
      // facets and match list need it next), words from theirs when every one is kept
      // (word-sets.ts) or, with term sets, read now and kept when common, any other
      // expression by FTS5's own count.
      state.count =
        fts !== null && !bitmaps!.countsByWords(q, p.catalog, ctx.countFromBytes)
          ? (bitmaps!.prefixCount(fts) ?? ctx.reader.matches.ftsCount(fts))
          : (listed() ?? ctx.reader.matches.count(countSql(q, { kind: 'fts', ids: null })))
      break
    }
    default:
      // The bitmap evaluator when it takes the query: exact, and the list its facets need
      // (with term sets made from its bytes only when they ask).
      state.count = ctx.inMemory(p) ? listed()! : ctx.reader.matches.count(countSql(q, plan))
  }
  return state.count
}
