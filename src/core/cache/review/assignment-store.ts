import type Database from 'better-sqlite3'
import type { AssignmentItem, AssignmentProgress } from '../../../shared/review-team'
import type { ReviewStatus } from '../../../shared/review'
import { CallsightError } from '../../errors'

/** SQL: an assigned call counts as reviewed once its status is done (DONE_STATUSES). */
const DONE_SQL = "coalesce(a.status IN ('reviewed','follow_up'), 0)"

interface ItemRow {
  listId: string
  listName: string
  callId: string
  position: number
  reviewer: string
  status: ReviewStatus
  total: number | null
  done: number
  assignedAt: number
  missing: number
}

/**
 * Which reviewer reviews which call of a review list: one reviewer per (list, call). The
 * list's items stay the list's; progress is read from the calls' annotations.
 */
export class AssignmentStore {
  constructor(private readonly db: Database.Database) {}

  private requireList(listId: string): void {
    if (this.db.prepare('SELECT 1 FROM review_lists WHERE id = ?').get(listId) === undefined)
      throw new CallsightError('NotFound', 'That review list no longer exists.')
  }

  /**
   * Assigns each of `assignments` (call id → reviewer) in the list, replacing an earlier
   * reviewer. Calls that are not in the list are refused, all or nothing.
   */
  assign(listId: string, assignments: ReadonlyMap<string, string>, by: string, at: number): number {
    this.requireList(listId)
    const inList = this.db.prepare('SELECT 1 FROM review_list_items WHERE call_id = ? AND list_id = ?').pluck()
    const put = this.db.prepare(
      `INSERT INTO review_assignments (list_id, call_id, reviewer, assigned_by, assigned_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (list_id, call_id) DO UPDATE SET reviewer = excluded.reviewer, assigned_by = excluded.assigned_by, assigned_at = excluded.assigned_at
       WHERE reviewer <> excluded.reviewer`
    )
    return this.db
      .transaction(() => {
        let n = 0
        for (const [callId, reviewer] of assignments) {
          if (inList.get(callId, listId) === undefined)
            throw new CallsightError('InvalidInput', `The call ${callId} is not in that review list.`)
          n += put.run(listId, callId, reviewer, by, at).changes
        }
        return n
      })
      .immediate()
  }

  /** An assignment as the team cache has it (pulled): a reviewer, or none (unassigned). */
  setShared(listId: string, callId: string, reviewer: string | null, by: string, at: number): void {
    if (reviewer === null) {
      this.db.prepare('DELETE FROM review_assignments WHERE list_id = ? AND call_id = ?').run(listId, callId)
      return
    }
    this.db
      .prepare(
        `INSERT INTO review_assignments (list_id, call_id, reviewer, assigned_by, assigned_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (list_id, call_id) DO UPDATE SET reviewer = excluded.reviewer, assigned_by = excluded.assigned_by, assigned_at = excluded.assigned_at`
      )
      .run(listId, callId, reviewer, by, at)
  }

  unassign(listId: string, callIds: readonly string[]): number {
    const del = this.db.prepare('DELETE FROM review_assignments WHERE list_id = ? AND call_id = ?')
    return this.db.transaction(() => callIds.reduce((n, c) => n + del.run(listId, c).changes, 0)).immediate()
  }

  /** The list's calls in order, each with its reviewer (null: not assigned). */
  ofList(listId: string): Array<{ callId: string; reviewer: string | null }> {
    this.requireList(listId)
    return this.db
      .prepare(
        `SELECT i.call_id AS callId, s.reviewer FROM review_list_items i
         LEFT JOIN review_assignments s ON s.list_id = i.list_id AND s.call_id = i.call_id
         WHERE i.list_id = ? ORDER BY i.position`
      )
      .all(listId) as Array<{ callId: string; reviewer: string | null }>
  }

  /** How many of the list's calls each reviewer holds. */
  countsOf(listId: string): Map<string, number> {
    const rows = this.db
      .prepare('SELECT reviewer, count(*) FROM review_assignments WHERE list_id = ? GROUP BY reviewer')
      .raw(true)
      .all(listId) as Array<[string, number]>
    return new Map(rows)
  }

  /**
   * A reviewer's assigned calls, the not-done first (so the first is the next to review),
   * then the done; within each, oldest list first and in the list's order.
   */
  mine(reviewer: string, limit: number): AssignmentItem[] {
    const rows = this.db
      .prepare(
        `SELECT s.list_id AS listId, l.name AS listName, s.call_id AS callId,
                (SELECT count(*) FROM review_list_items j WHERE j.list_id = i.list_id AND j.position < i.position) AS position,
                s.reviewer, coalesce(a.status, 'new') AS status, a.total, ${DONE_SQL} AS done, s.assigned_at AS assignedAt,
                NOT EXISTS (SELECT 1 FROM calls c WHERE c.call_id = s.call_id) AS missing
         FROM review_assignments s
         JOIN review_lists l ON l.id = s.list_id
         JOIN review_list_items i ON i.list_id = s.list_id AND i.call_id = s.call_id
         LEFT JOIN annotations a ON a.call_id = s.call_id
         WHERE s.reviewer = ?
         ORDER BY done, l.created_at, l.id, i.position
         LIMIT ?`
      )
      .all(reviewer, limit) as ItemRow[]
    return rows.map(({ missing, done, ...r }) => ({ ...r, done: done === 1, callMissing: missing === 1 }))
  }

  /** Assigned and reviewed per reviewer, and per list (with each list's reviewers). */
  progress(): AssignmentProgress {
    const rows = this.db
      .prepare(
        `SELECT s.list_id AS listId, s.reviewer, count(*) AS assigned, sum(${DONE_SQL}) AS reviewed
         FROM review_assignments s JOIN review_list_items i ON i.list_id = s.list_id AND i.call_id = s.call_id
         LEFT JOIN annotations a ON a.call_id = s.call_id
         GROUP BY s.list_id, s.reviewer ORDER BY s.list_id, s.reviewer`
      )
      .all() as Array<{ listId: string; reviewer: string; assigned: number; reviewed: number }>
    const lists = this.db
      .prepare(
        `SELECT l.id, l.name, (SELECT count(*) FROM review_list_items i WHERE i.list_id = l.id) AS size
         FROM review_lists l WHERE EXISTS (SELECT 1 FROM review_assignments s WHERE s.list_id = l.id)
         ORDER BY l.created_at DESC, l.name`
      )
      .all() as Array<{ id: string; name: string; size: number }>
    const byReviewer = new Map<string, { reviewer: string; assigned: number; reviewed: number }>()
    for (const r of rows) {
      const t = byReviewer.get(r.reviewer) ?? { reviewer: r.reviewer, assigned: 0, reviewed: 0 }
      t.assigned += r.assigned
      t.reviewed += r.reviewed
      byReviewer.set(r.reviewer, t)
    }
    return {
      byReviewer: [...byReviewer.values()].sort((a, b) => a.reviewer.localeCompare(b.reviewer)),
      byList: lists.map((l) => {
        const reviewers = rows
          .filter((r) => r.listId === l.id)
          .map((r) => ({ reviewer: r.reviewer, assigned: r.assigned, reviewed: r.reviewed }))
        return {
          listId: l.id,
          listName: l.name,
          size: l.size,
          assigned: reviewers.reduce((n, r) => n + r.assigned, 0),
          reviewed: reviewers.reduce((n, r) => n + r.reviewed, 0),
          reviewers
        }
      })
    }
  }
}
