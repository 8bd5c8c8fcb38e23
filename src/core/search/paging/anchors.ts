import type { SortKey } from '../../cache'
import type { MatchSet } from '../memory/match-set'
import type { Estimate } from '../plan/plan'

/** Rows between two stored anchors. */
export const ANCHOR_STEP = 1000
const EXACT_KEEP = 64

/**
 * What one query remembers between calls: its match estimate, its count, its match list
 * and keyset anchors.
 * anchors[k] is the sort key of the last row before position k × ANCHOR_STEP (k = 0: the
 * start, null). exact holds the keys at the ends of recently served pages, so that
 * reading on sequentially starts right there and costs O(limit).
 */
export class QueryState {
  readonly anchors: Array<SortKey | null | undefined> = [null]
  readonly exact = new Map<number, SortKey>()
  /** Its matches counted up to the planner's cap, once (plan.ts). */
  estimate: Estimate | null = null
  count: number | null = null
  /** The query's matches, read once for whoever needs them first: a common word's count, facets, a long jump. */
  matches: MatchSet | null = null

  /** The known position closest below `offset`, and the key of the row just before it. */
  nearest(offset: number): { position: number; key: SortKey | null } {
    let k = Math.min(Math.floor(offset / ANCHOR_STEP), this.anchors.length - 1)
    while (k > 0 && this.anchors[k] === undefined) k--
    let position = k * ANCHOR_STEP
    let key = this.anchors[k] ?? null
    for (const [p, exactKey] of this.exact) {
      if (p <= offset && p > position) {
        position = p
        key = exactKey
      }
    }
    return { position, key }
  }

  setAnchor(k: number, key: SortKey): void {
    while (this.anchors.length < k) this.anchors.push(undefined)
    this.anchors[k] = key
  }

  remember(position: number, key: SortKey): void {
    if (position % ANCHOR_STEP === 0) this.setAnchor(position / ANCHOR_STEP, key)
    this.exact.delete(position)
    this.exact.set(position, key)
    if (this.exact.size > EXACT_KEEP) {
      const oldest = this.exact.keys().next()
      if (!oldest.done) this.exact.delete(oldest.value)
    }
  }
}

/** A small LRU over recent queries, by CompiledQuery.key. */
export class StateCache {
  private readonly map = new Map<string, QueryState>()
  constructor(private readonly size = 16) {}

  get(key: string): QueryState {
    let s = this.map.get(key)
    if (s) this.map.delete(key)
    else s = new QueryState()
    this.map.set(key, s)
    if (this.map.size > this.size) {
      const oldest = this.map.keys().next()
      if (!oldest.done) this.map.delete(oldest.value)
    }
    return s
  }

  clear(): void {
    this.map.clear()
  }
}
