import type Database from 'better-sqlite3'
import type { CallCache } from '../call-cache'
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
  /** The row ids (calls.id) of a review list's calls that are cached. */
  listRows(listId: string): Int32Array
}

// note <> '' and the mark as 0/1, as the SQL filter tests them (review-filter.ts).
const FACTS = `SELECT call_id, call_row, status, total, scorecard_id, updated_by, note <> '', service_dropped_at IS NOT NULL,
  note_folded, tags FROM annotations`
const CHUNK = 500

export function createReviewReads(cache: CallCache): ReviewReads {
  const db = cache.db
  let all: Database.Statement | null = null
  let list: Database.Statement | null = null
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
    listRows(listId) {
      list ??= db.prepare('SELECT c.id FROM review_list_items li CROSS JOIN calls c ON c.call_id = li.call_id WHERE li.list_id = ?').pluck()
      return Int32Array.from(list.all(listId) as number[])
    }
  }
}
