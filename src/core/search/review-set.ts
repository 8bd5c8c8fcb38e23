import type { ReviewFilter, SearchQuery } from '../../shared/domain'
import type { AnnotationFacts, ReviewReads } from '../cache'
import { PerVersion, type DataWatch } from './data-watch'
import { noteWords } from './review-filter'

const STATUS_CODE: Readonly<Record<string, number>> = { new: 0, in_review: 1, reviewed: 2, follow_up: 3 }
const HAS_NOTE = 1
const DROPPED = 2
/** Review lists whose calls are kept (a list is one filter of the filter bar: few). */
const LISTS_KEPT = 8

/** Codes for repeated strings (scorecards, reviewers, tags), so a test is an integer compare. */
class Dict {
  private readonly codes = new Map<string, number>()
  code(s: string): number {
    let c = this.codes.get(s)
    if (c === undefined) this.codes.set(s, (c = this.codes.size))
    return c
  }
  /** -1 when the string was never coded: nothing holds it. */
  find(s: string): number {
    return this.codes.get(s) ?? -1
  }
}

/**
 * Every annotation in memory, as columns: what a review filter tests (review-filter.ts says
 * the same in SQL). Built once per data version from the annotations table alone (each row
 * carries its call's row id, migration 11); after this connection's saves it reads again only
 * the rows they wrote (ReviewJournal), so a save costs the next query one row's read.
 */
class Annotations {
  private readonly index = new Map<string, number>()
  private n = 0
  private row = new Int32Array(0)
  private status = new Uint8Array(0)
  private total = new Float64Array(0)
  private card = new Int32Array(0)
  private reviewer = new Int32Array(0)
  private flags = new Uint8Array(0)
  private notes: string[] = []
  private tags: Array<readonly number[]> = []
  readonly cards = new Dict()
  readonly reviewers = new Dict()
  readonly tagCodes = new Dict()
  /** Each list's call row ids, read on first use. */
  readonly lists = new Map<string, Int32Array>()

  constructor(
    rows: readonly AnnotationFacts[],
    /** The review version the rows were read at. */
    public version: number
  ) {
    this.grow(rows.length)
    for (const r of rows) this.put(r)
  }

  get size(): number {
    return this.n
  }

  private grow(want: number): void {
    if (want <= this.row.length) return
    const cap = Math.max(want, Math.ceil(this.row.length * 1.5), 64)
    const re = <T extends Int32Array | Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(cap)
      b.set(a)
      return b
    }
    this.row = re(this.row, (k) => new Int32Array(k))
    this.status = re(this.status, (k) => new Uint8Array(k))
    this.total = re(this.total, (k) => new Float64Array(k))
    this.card = re(this.card, (k) => new Int32Array(k))
    this.reviewer = re(this.reviewer, (k) => new Int32Array(k))
    this.flags = re(this.flags, (k) => new Uint8Array(k))
  }

  /** Writes one annotation's facts (a new entry, or over the one of its call). */
  put(r: AnnotationFacts): void {
    const [callId, row, status, total, card, reviewer, hasNote, dropped, noteFolded, tags] = r
    let i = this.index.get(callId)
    if (i === undefined) {
      this.grow(this.n + 1)
      i = this.n++
      this.index.set(callId, i)
    }
    this.row[i] = row ?? -1
    this.status[i] = STATUS_CODE[status] ?? 0
    this.total[i] = total ?? Number.NaN
    this.card[i] = card === null ? -1 : this.cards.code(card)
    this.reviewer[i] = this.reviewers.code(reviewer)
    this.flags[i] = (hasNote === 1 ? HAS_NOTE : 0) | (dropped === 1 ? DROPPED : 0)
    this.notes[i] = noteFolded
    this.tags[i] = (JSON.parse(tags) as string[]).map((t) => this.tagCodes.code(t))
  }

  /** Whether the call has an annotation here. */
  has(callId: string): boolean {
    return this.index.has(callId)
  }

  /**
   * The calls (row ids below `size`) the filter matches, a byte each. Mirrors compileReview:
   * conditions on the annotation need one; "new" also takes calls never annotated; "has no
   * note" and "not dropped" take every call but the annotated ones with a note / the mark.
   */
  matches(f: ReviewFilter, size: number, listRows: (id: string) => Int32Array): { bits: Uint8Array; n: number } {
    const statuses = [...new Set(f.statuses)]
    const byStatus = statuses.length > 0 && statuses.length < 4
    const statusOk = new Uint8Array(4)
    for (const s of statuses) statusOk[STATUS_CODE[s] ?? 0] = 1
    const newToo = byStatus && statuses.includes('new')
    const tags = [...new Set(f.tags)].map((t) => this.tagCodes.find(t))
    const words = noteWords(f.noteText)
    const card = f.scorecardId === null ? -2 : this.cards.find(f.scorecardId)
    const reviewer = f.reviewer === null ? -2 : this.reviewers.find(f.reviewer)
    // Any condition that only an annotation can meet: the matches are among the annotated calls.
    const needs =
      (byStatus && !newToo) ||
      f.hasNote === true ||
      f.scoreMin !== null ||
      f.scoreMax !== null ||
      f.scorecardId !== null ||
      f.reviewer !== null ||
      f.serviceDropped === true ||
      words.length > 0 ||
      tags.length > 0
    const { row, status, total, flags } = this
    const pass = (i: number): boolean => {
      if (byStatus && statusOk[status[i]!] !== 1) return false
      const fl = flags[i]!
      if (f.hasNote !== null && (fl & HAS_NOTE) !== (f.hasNote ? HAS_NOTE : 0)) return false
      if (f.serviceDropped !== null && (fl & DROPPED) !== (f.serviceDropped ? DROPPED : 0)) return false
      // NaN (no score) fails both, as total >= ? does on NULL.
      if (f.scoreMin !== null && !(total[i]! >= f.scoreMin)) return false
      if (f.scoreMax !== null && !(total[i]! <= f.scoreMax)) return false
      if (card !== -2 && this.card[i] !== card) return false
      if (reviewer !== -2 && this.reviewer[i] !== reviewer) return false
      for (const t of tags) if (!this.tags[i]!.includes(t)) return false
      for (const w of words) if (!this.notes[i]!.includes(w)) return false
      return true
    }
    const out = new Uint8Array(size)
    let n = 0
    if (needs) {
      for (let i = 0; i < this.n; i++) {
        const r = row[i]!
        if (r >= 0 && r < size && pass(i)) {
          out[r] = 1
          n++
        }
      }
    } else {
      out.fill(1)
      n = size
      for (let i = 0; i < this.n; i++) {
        const r = row[i]!
        if (r >= 0 && r < size && !pass(i)) {
          out[r] = 0
          n--
        }
      }
    }
    if (f.listId !== null) {
      // A list's calls are few (at most LIST_MAX): keep those of them that passed.
      const rows = listRows(f.listId)
      const inList = new Uint8Array(size)
      n = 0
      for (let k = 0; k < rows.length; k++) {
        const r = rows[k]!
        if (r < size && out[r] === 1 && inList[r] === 0) {
          inList[r] = 1
          n++
        }
      }
      return { bits: inList, n }
    }
    return { bits: out, n }
  }
}

/** Per-query review bits kept until resetCaches (a window page may ask several times). */
const BITS_KEPT = 8

/**
 * A query's review filter as a byte per call id, from the annotations held in memory: what
 * the bitmap evaluator (bitmap-eval.ts) ANDs with the rest of the query, so a review filter
 * alone or with text is served like any other in-memory query (a window of the newest calls,
 * the match list for counts) instead of walking the review tables and joining each row to
 * its call.
 */
export class ReviewSet {
  /** The annotations, and each query's bits, per data version (a sync renumbers nothing, but may add annotated calls). */
  private readonly held: PerVersion<{ a: Annotations | null; kept: Map<string, { bits: Uint8Array; n: number }> }>

  constructor(
    private readonly reads: ReviewReads,
    watch: DataWatch
  ) {
    this.held = new PerVersion(watch, () => ({ a: null, kept: new Map() }))
  }

  /** Whether it answers this query's review filter (the query has one). */
  takes(query: SearchQuery): boolean {
    return query.review !== undefined
  }

  /** The annotations as of now: built on first use per data version, brought up to date with this connection's writes. */
  private annotations(slot: { a: Annotations | null }): Annotations {
    const now = this.reads.version()
    let a = slot.a
    if (a !== null && a.version !== now) {
      const changes = this.reads.changesSince(a.version)
      if (changes === null) a = null
      else {
        const rows = changes.calls.length > 0 ? this.reads.of([...new Set(changes.calls)]) : []
        const found = new Set(rows.map((r) => r[0]))
        // An annotation is never deleted alone; a call written but not found would be a change
        // this reader does not know how to apply: read everything.
        if (changes.calls.some((c) => !found.has(c) && a!.has(c))) a = null
        else {
          for (const r of rows) a.put(r)
          if (changes.lists) a.lists.clear()
          a.version = now
        }
      }
    }
    if (a === null) a = new Annotations(this.reads.all(), now)
    slot.a = a
    return a
  }

  /** Forgets the per-query bits (benchmarks measure cold queries); the annotations stay, as the columns do. */
  reset(): void {
    this.held.get().kept.clear()
  }

  /**
   * The calls with ids below `size` that the query's review filter matches (all when it has
   * none), and how many (an estimate when the filter takes calls never annotated: every id).
   */
  bits(query: SearchQuery, size: number): { bits: Uint8Array; n: number } {
    const f = query.review
    if (f === undefined) return { bits: new Uint8Array(size).fill(1), n: size }
    const slot = this.held.get()
    const a = this.annotations(slot)
    const kept = slot.kept
    const key = `${a.version}\u0000${size}\u0000${JSON.stringify(f)}`
    let got = kept.get(key)
    if (got?.bits.length === size) return got
    got = a.matches(f, size, (id) => {
      let rows = a.lists.get(id)
      if (!rows) {
        if (a.lists.size >= LISTS_KEPT) a.lists.clear()
        rows = this.reads.listRows(id)
        a.lists.set(id, rows)
      }
      return rows
    })
    if (kept.size >= BITS_KEPT) kept.clear()
    kept.set(key, got)
    return got
  }
}

/** Whether the bitmap evaluator with a ReviewSet answers the query: a review filter, no extra-field filter. */
export function reviewEvaluable(query: SearchQuery): boolean {
  return query.review !== undefined && (query.fields ?? []).length === 0
}

/** The bitmap evaluator's matches of the rest of the query, ANDed with the review filter's. */
export function evaluateWithReview(
  rest: (within: readonly [number, number] | null) => Uint8Array,
  reviews: ReviewSet,
  query: SearchQuery,
  within: readonly [number, number] | null = null
): Uint8Array {
  const m = rest(within)
  const r = reviews.bits(query, m.length).bits
  for (let i = 0; i < m.length; i++) m[i]! &= r[i]!
  return m
}
