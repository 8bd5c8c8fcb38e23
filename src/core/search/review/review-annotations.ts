import type { ReviewFilter } from '../../../shared/domain'
import type { AnnotationFacts } from '../../cache'
import { inDateOrder, type DateOrder } from '../memory/date-rank'
import { noteWords } from './review-filter'

const STATUS_CODE: Readonly<Record<string, number>> = { new: 0, in_review: 1, reviewed: 2, follow_up: 3 }
const HAS_NOTE = 1
const DROPPED = 2

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

/** A review list's cached calls: in date order, and as a byte per id. */
export interface ListCalls {
  byDate: Int32Array
  has: Uint8Array
}

/**
 * A review filter compiled against the annotations: which entries pass (`pass`), and
 * whether only annotated calls can match (`needs`: a condition only an annotation meets;
 * else a call never annotated matches too: "new", "has no note", "not dropped").
 */
export interface Compiled {
  needs: boolean
  pass: (e: number) => boolean
  list: ListCalls | null
}

/**
 * Every annotation in memory, as columns: what a review filter tests (review-filter.ts says
 * the same in SQL), with the annotated calls in date order. Built once per data version from
 * the annotations table alone (each row carries its call's row id, migration 11) and the
 * ids in date order (the columns'); after this connection's saves it reads again only the
 * rows they wrote (ReviewJournal), so a save costs the next query one row's read.
 */
export class Annotations {
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
  private readonly cards = new Dict()
  private readonly reviewers = new Dict()
  private readonly tagCodes = new Dict()
  /** Each id's position in date order (-1: no call), and its annotation entry (-1: none). */
  private rank: Int32Array = new Int32Array(0)
  private entryOf = new Int32Array(0)
  /** The entries whose call is cached, in date order (oldest first). */
  private sorted: number[] = []
  /** Every call id in date order, oldest first. */
  private order: Int32Array = new Int32Array(0)
  /** Each list's calls, read on first use. */
  readonly lists = new Map<string, ListCalls>()

  constructor(
    rows: readonly AnnotationFacts[],
    /** The review version the rows were read at. */
    public version: number,
    /** Every call id in date order, oldest first, and each id's place in it. */
    order: DateOrder
  ) {
    this.grow(rows.length)
    for (const r of rows) this.write(r)
    this.setOrder(order)
  }

  /**
   * The calls changed (a sync): a new date order, and the rows of annotations whose calls are
   * new (a call annotated before it was synced gets its row id then, migration 11). Nothing
   * else of an annotation depends on its call, so the other rows stay as they are.
   */
  resync(rows: readonly AnnotationFacts[], order: DateOrder): void {
    for (const r of rows) this.write(r)
    this.setOrder(order)
    this.lists.clear()
  }

  /** What follows from the date order: the entry of each row id, the annotated calls in date order. */
  private setOrder({ order, rank }: DateOrder): void {
    const size = rank.length
    const entryOf = new Int32Array(size).fill(-1)
    for (let e = 0; e < this.n; e++) {
      const r = this.row[e]!
      if (r >= 0 && r < size) entryOf[r] = e
    }
    // One pass over the order: no sort of the entries.
    const sorted: number[] = []
    for (let k = 0; k < order.length; k++) {
      const e = entryOf[order[k]!]!
      if (e >= 0) sorted.push(e)
    }
    this.order = order
    this.rank = rank
    this.entryOf = entryOf
    this.sorted = sorted
  }

  /** The number of ids the date order covers (row ids below it). */
  get size(): number {
    return this.rank.length
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

  /** Whether entry e's call is in the date order. */
  private cached(e: number): boolean {
    const r = this.row[e]!
    return r >= 0 && r < this.rank.length && this.rank[r]! >= 0
  }

  /** Writes one annotation's facts (a new entry, or over the one of its call); returns its entry. */
  private write(r: AnnotationFacts): number {
    const [callId, row, status, total, card, reviewer, hasNote, dropped, noteFolded, tags] = r
    let e = this.index.get(callId)
    if (e === undefined) {
      this.grow(this.n + 1)
      e = this.n++
      this.index.set(callId, e)
      this.row[e] = -1
    }
    const was = this.row[e]!
    if (was >= 0 && was < this.entryOf.length && this.entryOf[was] === e) this.entryOf[was] = -1
    this.row[e] = row ?? -1
    if (row !== null && row >= 0 && row < this.entryOf.length) this.entryOf[row] = e
    this.status[e] = STATUS_CODE[status] ?? 0
    this.total[e] = total ?? Number.NaN
    this.card[e] = card === null ? -1 : this.cards.code(card)
    this.reviewer[e] = this.reviewers.code(reviewer)
    this.flags[e] = (hasNote === 1 ? HAS_NOTE : 0) | (dropped === 1 ? DROPPED : 0)
    this.notes[e] = noteFolded
    this.tags[e] = (JSON.parse(tags) as string[]).map((t) => this.tagCodes.code(t))
    return e
  }

  /** A row read again after a save: written over its entry, which keeps its place in date order. */
  put(r: AnnotationFacts): void {
    const before = this.index.get(r[0])
    const wasRow = before === undefined ? -1 : this.row[before]!
    const e = this.write(r)
    if (before !== undefined && wasRow === this.row[e]) return
    // A new entry (or, never in practice, one whose call's row id moved): into the date order.
    if (before !== undefined) {
      const at = this.sorted.indexOf(e)
      if (at >= 0) this.sorted.splice(at, 1)
    }
    if (!this.cached(e)) return
    const key = this.rank[this.row[e]!]!
    let lo = 0
    let hi = this.sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.rank[this.row[this.sorted[mid]!]!]! < key) lo = mid + 1
      else hi = mid
    }
    this.sorted.splice(lo, 0, e)
  }

  has(callId: string): boolean {
    return this.index.has(callId)
  }

  /** Mirrors compileReview: the same conditions, on the entry's columns. */
  compile(f: ReviewFilter, list: ListCalls | null): Compiled {
    const statuses = [...new Set(f.statuses)]
    const byStatus = statuses.length > 0 && statuses.length < 4
    const statusOk = new Uint8Array(4)
    for (const s of statuses) statusOk[STATUS_CODE[s] ?? 0] = 1
    const newToo = byStatus && statuses.includes('new')
    const tags = [...new Set(f.tags)].map((t) => this.tagCodes.find(t))
    const words = noteWords(f.noteText)
    const card = f.scorecardId === null ? -2 : this.cards.find(f.scorecardId)
    const reviewer = f.reviewer === null ? -2 : this.reviewers.find(f.reviewer)
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
    const { status, total, flags } = this
    const pass = (e: number): boolean => {
      if (byStatus && statusOk[status[e]!] !== 1) return false
      const fl = flags[e]!
      if (f.hasNote !== null && (fl & HAS_NOTE) !== (f.hasNote ? HAS_NOTE : 0)) return false
      if (f.serviceDropped !== null && (fl & DROPPED) !== (f.serviceDropped ? DROPPED : 0)) return false
      // NaN (no score) fails both, as total >= ? does on NULL.
      if (f.scoreMin !== null && !(total[e]! >= f.scoreMin)) return false
      if (f.scoreMax !== null && !(total[e]! <= f.scoreMax)) return false
      if (card !== -2 && this.card[e] !== card) return false
      if (reviewer !== -2 && this.reviewer[e] !== reviewer) return false
      for (const t of tags) if (!this.tags[e]!.includes(t)) return false
      for (const w of words) if (!this.notes[e]!.includes(w)) return false
      return true
    }
    return { needs, pass, list }
  }

  /** Whether call `id` matches. */
  matches(c: Compiled, id: number): boolean {
    if (id < 0 || id >= this.rank.length) return false
    if (c.list !== null && c.list.has[id] !== 1) return false
    const e = this.entryOf[id]!
    return e < 0 ? !c.needs : c.pass(e)
  }

  /**
   * The matching calls in date order (newest first when `desc`), a batch at a time: from the
   * narrowest source there is, a list's calls, the annotated calls (when only an annotation
   * can match), or every call.
   */
  walk(c: Compiled, desc: boolean): (max: number) => number[] {
    const list = c.list
    const length = list !== null ? list.byDate.length : c.needs ? this.sorted.length : this.order.length
    const step = desc ? -1 : 1
    let k = desc ? length - 1 : 0
    return (max) => {
      const out: number[] = []
      for (; out.length < max && k >= 0 && k < length; k += step) {
        if (list !== null) {
          const id = list.byDate[k]!
          if (this.matches(c, id)) out.push(id)
        } else if (c.needs) {
          const e = this.sorted[k]!
          if (c.pass(e)) out.push(this.row[e]!)
        } else {
          const id = this.order[k]!
          if (this.matches(c, id)) out.push(id)
        }
      }
      return out
    }
  }

  /** Every matching call with an id below `size`, a byte each, and how many. */
  bits(c: Compiled, size: number): { bits: Uint8Array; n: number } {
    const out = new Uint8Array(size)
    let n = 0
    const mark = (id: number): void => {
      if (id < size && out[id] === 0) {
        out[id] = 1
        n++
      }
    }
    if (c.list !== null) {
      for (const id of c.list.byDate) if (this.matches(c, id)) mark(id)
    } else if (c.needs) {
      for (const e of this.sorted) if (c.pass(e)) mark(this.row[e]!)
    } else {
      for (let k = 0; k < this.order.length; k++) if (this.matches(c, this.order[k]!)) mark(this.order[k]!)
    }
    return { bits: out, n }
  }

  /** These calls in date order (newest first when `desc`); calls not in the order are left out. */
  inDateOrder(ids: readonly number[], desc: boolean): number[] {
    return inDateOrder(ids, { order: this.order, rank: this.rank }, desc)
  }

  /** A list's calls that are cached, in date order, from their row ids. */
  listCalls(rows: Int32Array): ListCalls {
    const has = new Uint8Array(this.rank.length)
    const kept: number[] = []
    for (const id of rows) {
      if (id < 0 || id >= this.rank.length || this.rank[id]! < 0 || has[id] === 1) continue
      has[id] = 1
      kept.push(id)
    }
    kept.sort((a, b) => this.rank[a]! - this.rank[b]!)
    return { byDate: Int32Array.from(kept), has }
  }
}
