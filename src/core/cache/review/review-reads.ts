import type Database from 'better-sqlite3'
import { connectionOf, type CallCache } from '../call-cache'
import type { ReviewChanges } from './review-journal'

/**
 * One annotation as search's review filter reads it: [call_id, call_row (calls.id; null
 * while the call is not cached), status, total, scorecard_id, updated_by, has a note (1/0),
 * dropped by the service (1/0), note_folded, tags (JSON)].
 */
export type AnnotationFacts = [string, number | null, string, number | null, string | null, string, number, number, string, string]

/** What search reads of the review tables to hold the annotations in memory (search/review-set.ts). */
export interface ReviewReads {
  /** Moves with this connection's writes to annotations and review lists. */
  version(): number
  /** What this connection's review writes after `version` changed; null when not known. */
  changesSince(version: number): ReviewChanges | null
  /** Every annotation. */
  all(): AnnotationFacts[]
  /** The annotations of these calls (those that have one). */
  of(callIds: readonly string[]): AnnotationFacts[]
  /** The annotations of the calls with row ids from `from` on (a sync's new calls); null when more than `max` calls are. */
  ofNewCalls(from: number, max: number): AnnotationFacts[] | null
  /** The row ids (calls.id) of a review list's calls that are cached. */
  listRows(listId: string): Int32Array
}

// note <> '' and the mark as 0/1, as the SQL filter tests them (review-filter.ts).
const FACTS = `SELECT call_id, call_row, status, total, scorecard_id, updated_by, note <> '', service_dropped_at IS NOT NULL,
  note_folded, tags FROM annotations`
const CHUNK = 500
// The new calls drive (a range of the primary key), each probing the annotations' key.
const OF_NEW = `SELECT a.call_id, a.call_row, a.status, a.total, a.scorecard_id, a.updated_by, a.note <> '',
  a.service_dropped_at IS NOT NULL, a.note_folded, a.tags FROM calls c CROSS JOIN annotations a ON a.call_id = c.call_id
  WHERE c.id >= ?`

export function createReviewReads(cache: CallCache): ReviewReads {
  const db = connectionOf(cache)
  let all: Database.Statement | null = null
  let list: Database.Statement | null = null
  let ofNew: Database.Statement | null = null
  let maxId: Database.Statement | null = null
  const some = new Map<number, Database.Statement>()
  return {
    version: () => cache.reviewVersion,
    changesSince: (version) => cache.reviewChangesSince(version),
    all() {
      all ??= db.prepare(FACTS).raw(true)
      return all.all() as AnnotationFacts[]
    },
    of(callIds) {
      const out: AnnotationFacts[] = []
      for (let i = 0; i < callIds.length; i += CHUNK) {
        const chunk = callIds.slice(i, i + CHUNK)
        let st = some.get(chunk.length)
        if (!st) {
          st = db.prepare(`${FACTS} WHERE call_id IN (${chunk.map(() => '?').join(',')})`).raw(true)
          some.set(chunk.length, st)
        }
        for (const r of st.all(...chunk) as AnnotationFacts[]) out.push(r)
      }
      return out
    },
    ofNewCalls(from, max) {
      maxId ??= db.prepare('SELECT max(id) FROM calls').pluck()
      const top = (maxId.get() as number | null) ?? 0
      if (top - from + 1 > max) return null
      ofNew ??= db.prepare(OF_NEW).raw(true)
      return ofNew.all(from) as AnnotationFacts[]
    },
    listRows(listId) {
      list ??= db.prepare('SELECT c.id FROM review_list_items li CROSS JOIN calls c ON c.call_id = li.call_id WHERE li.list_id = ?').pluck()
      return Int32Array.from(list.all(listId) as number[])
    }
  }
}
