import type { SearchQuery } from '../../../shared/domain'
import type { ReviewReads } from '../../cache'
import type { DataVersion } from '../../cache'
import type { DataWatch } from '../data-watch'
import type { DateOrder } from '../memory/date-rank'
import { Annotations, type ListCalls } from './review-annotations'
import { usesTeamEvaluations } from './review-filter'

/** Review lists whose calls are kept (a list is one filter of the filter bar: few). */
const LISTS_KEPT = 8
/** Per-query review bits kept until resetCaches (a count and a page may both ask). */
const BITS_KEPT = 8
/** New calls after which a sync reads every annotation rather than those of the new calls. */
const RESYNC_MAX = 50_000

/** One query's review filter against the annotations held now. */
export interface ReviewMatch {
  /** Whether call `id` matches the review filter. */
  has(id: number): boolean
  /** The matching calls in date order, newest first when `desc`, `max` at a time (empty: no more). */
  walk(desc: boolean): (max: number) => number[]
  /** These calls (any) in date order, newest first when `desc`. */
  inDateOrder(ids: readonly number[], desc: boolean): number[]
  /** Every matching call with an id below `size`, a byte each, and how many (kept until reset). */
  bits(size: number): { bits: Uint8Array; n: number }
}

/**
 * A query's review filter answered from the annotations held in memory: a page walks the
 * matching calls in date order (review-page.ts), a count or a deep page takes them as a byte
 * per call id ANDed with the bitmap evaluator's answer for the rest of the query.
 */
export class ReviewSet {
  /** The annotations held, and the data version they follow (null: none yet). */
  private held: Annotations | null = null
  private builtAt: DataVersion | null = null
  /** Each query's bits, for the data version held. */
  private readonly kept = new Map<string, { bits: Uint8Array; n: number }>()
  /** How many times every annotation was read (tests: a sync must not cost that). */
  fullReads = 0

  constructor(
    private readonly reads: ReviewReads,
    private readonly watch: DataWatch,
    /** Every call id in date order, oldest first, and each id's place in it (the columns', per data version). */
    private readonly byDate: () => DateOrder
  ) {}

  /**
   * The annotations as of now. A change of the calls through this connection (a sync page)
   * re-reads only the annotations of calls it added and takes the new date order; another
   * connection's write, or a change the journal no longer knows, reads every annotation. Then
   * this connection's own review writes since are read again, row by row.
   */
  private annotations(): Annotations {
    const { change, now } = this.watch.since(this.builtAt)
    let a = this.held
    if (a === null || change.kind !== 'none') {
      this.kept.clear()
      if (a !== null && change.kind === 'own-writes') {
        const order = this.byDate()
        const from = change.changes.newFrom
        if (from === null) a.resync([], order)
        else {
          const rows = this.reads.ofNewCalls(from, RESYNC_MAX)
          if (rows === null) a = null
          else a.resync(rows, order)
        }
      } else a = null
      this.builtAt = now
    }
    const version = this.reads.version()
    if (a !== null && a.version !== version) {
      const changes = this.reads.changesSince(a.version)
      if (changes === null) a = null
      else {
        const rows = changes.calls.length > 0 ? this.reads.of([...new Set(changes.calls)]) : []
        const found = new Set(rows.map((r) => r[0]))
        // An annotation is deleted only with all of them (a "write of everything"); one written
        // but not found is a change this reader does not know how to apply: read everything.
        if (changes.calls.some((c) => !found.has(c) && a!.has(c))) a = null
        else {
          for (const r of rows) a.put(r)
          if (changes.lists) a.lists.clear()
          a.version = version
        }
      }
    }
    if (a === null) {
      this.fullReads++
      a = new Annotations(this.reads.all(), version, this.byDate())
    }
    this.held = a
    return a
  }

  /** Forgets the per-query bits (benchmarks measure cold queries); the annotations stay, as the columns do. */
  reset(): void {
    this.kept.clear()
  }

  /** The query's review filter (which it must have) against the annotations held now. */
  match(query: SearchQuery): ReviewMatch {
    const f = query.review!
    const a = this.annotations()
    let list: ListCalls | null = null
    if (f.listId !== null) {
      list = a.lists.get(f.listId) ?? null
      if (list === null) {
        if (a.lists.size >= LISTS_KEPT) a.lists.clear()
        list = a.listCalls(this.reads.listRows(f.listId))
        a.lists.set(f.listId, list)
      }
    }
    const c = a.compile(f, list)
    const key = `${a.version}\u0000${JSON.stringify(f)}`
    return {
      has: (id) => a.matches(c, id),
      walk: (desc) => a.walk(c, desc),
      inDateOrder: (ids, desc) => a.inDateOrder(ids, desc),
      bits: (size) => {
        let got = this.kept.get(key)
        if (got?.bits.length !== size) {
          got = a.bits(c, size)
          if (this.kept.size >= BITS_KEPT) this.kept.clear()
          this.kept.set(key, got)
        }
        return got
      }
    }
  }
}

/**
 * Whether the bitmap evaluator with a ReviewSet answers the query: a review filter, no
 * extra-field filter, and no condition on the team's evaluations (the set holds this
 * workstation's annotations only; the SQL plans read team_evaluations).
 */
export function reviewEvaluable(query: SearchQuery): boolean {
  return query.review !== undefined && (query.fields ?? []).length === 0 && !usesTeamEvaluations(query.review)
}

/** The bitmap evaluator's matches of the rest of the query, ANDed with the review filter's. */
export function evaluateWithReview(
  rest: (within: readonly [number, number] | null) => Uint8Array,
  reviews: ReviewSet,
  query: SearchQuery,
  within: readonly [number, number] | null = null
): Uint8Array {
  const m = rest(within)
  const r = reviews.match(query).bits(m.length).bits
  for (let i = 0; i < m.length; i++) m[i]! &= r[i]!
  return m
}
