import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import { LIST_MAX, type ReviewListInfo, type ReviewListItem, type ReviewStatus } from '../../../shared/review'
import { CallsightError } from '../../errors'

/** SQL: the statuses that count as reviewed in a list's progress (DONE_STATUSES). */
const DONE_SQL = "a.status IN ('reviewed','follow_up')"

/**
 * Review lists: named, ordered lists of calls by callId (so they survive a clear like the
 * annotations), with their progress read from the annotations.
 */
export class ReviewListStore {
  constructor(
    private readonly db: Database.Database,
    private readonly onWrite: () => void
  ) {}

  list(): ReviewListInfo[] {
    return this.db
      .prepare(
        `SELECT l.id, l.name, l.created_at AS createdAt, l.author,
                (SELECT count(*) FROM review_list_items i WHERE i.list_id = l.id) AS size,
                (SELECT count(*) FROM review_list_items i JOIN annotations a ON a.call_id = i.call_id WHERE i.list_id = l.id AND ${DONE_SQL}) AS reviewed
         FROM review_lists l ORDER BY l.created_at DESC, l.name`
      )
      .all() as ReviewListInfo[]
  }

  info(id: string): ReviewListInfo {
    const found = this.list().find((l) => l.id === id)
    if (!found) throw new CallsightError('NotFound', 'That review list no longer exists.')
    return found
  }

  create(name: string, callIds: readonly string[], source: unknown, author: string, at: number): ReviewListInfo {
    const id = randomUUID()
    this.db
      .transaction(() => {
        this.db
          .prepare('INSERT INTO review_lists (id, name, created_at, author, source) VALUES (?, ?, ?, ?, ?)')
          .run(id, name, at, author, JSON.stringify(source))
        this.appendInTx(id, callIds)
      })
      .immediate()
    this.onWrite()
    return this.info(id)
  }

  /** Appends calls not in the list yet, in the order given. */
  add(id: string, callIds: readonly string[]): ReviewListInfo {
    this.info(id)
    this.db.transaction(() => this.appendInTx(id, callIds)).immediate()
    this.onWrite()
    return this.info(id)
  }

  private appendInTx(id: string, callIds: readonly string[]): void {
    const size = this.db.prepare('SELECT count(*) FROM review_list_items WHERE list_id = ?').pluck().get(id) as number
    let next = this.db.prepare('SELECT coalesce(max(position) + 1, 0) FROM review_list_items WHERE list_id = ?').pluck().get(id) as number
    if (size + callIds.length > LIST_MAX)
      throw new CallsightError('InvalidInput', `A review list holds at most ${LIST_MAX.toLocaleString('en')} calls.`)
    const put = this.db.prepare('INSERT OR IGNORE INTO review_list_items (list_id, position, call_id) VALUES (?, ?, ?)')
    for (const callId of callIds) if (put.run(id, next, callId).changes > 0) next++
  }

  /** A list as the team cache has it (pulled): same id; nothing when it is here already. */
  putShared(id: string, name: string, source: string, author: string, at: number): void {
    this.db
      .prepare('INSERT OR IGNORE INTO review_lists (id, name, created_at, author, source) VALUES (?, ?, ?, ?, ?)')
      .run(id, name, at, author, source)
    this.onWrite()
  }

  /** How the list was built, as stored (JSON). */
  sourceOf(id: string): string {
    return (this.db.prepare('SELECT source FROM review_lists WHERE id = ?').pluck().get(id) as string | undefined) ?? '{}'
  }

  exists(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM review_lists WHERE id = ?').get(id) !== undefined
  }

  /** A call of a pulled list at its position (kept when the list holds it already). */
  putItem(id: string, position: number, callId: string): void {
    this.db.prepare('INSERT OR IGNORE INTO review_list_items (list_id, position, call_id) VALUES (?, ?, ?)').run(id, position, callId)
    this.onWrite()
  }

  /** The list's calls with their stored positions (what a push of the list sends). */
  positions(id: string): Array<[number, string]> {
    return this.db
      .prepare('SELECT position, call_id FROM review_list_items WHERE list_id = ? ORDER BY position')
      .raw(true)
      .all(id) as Array<[number, string]>
  }

  removeCalls(id: string, callIds: readonly string[]): ReviewListInfo {
    this.dropCalls(id, callIds)
    return this.info(id)
  }

  /** Takes calls out of a list with their assignments; returns those it held (a pull's removal too). */
  dropCalls(id: string, callIds: readonly string[]): string[] {
    const del = this.db.prepare('DELETE FROM review_list_items WHERE list_id = ? AND call_id = ?')
    const unassign = this.db.prepare('DELETE FROM review_assignments WHERE list_id = ? AND call_id = ?')
    const held: string[] = []
    this.db
      .transaction(() => {
        for (const c of callIds) {
          if (del.run(id, c).changes > 0) held.push(c)
          unassign.run(id, c)
        }
      })
      .immediate()
    this.onWrite()
    return held
  }

  rename(id: string, name: string): ReviewListInfo {
    this.db.prepare('UPDATE review_lists SET name = ? WHERE id = ?').run(name, id)
    return this.info(id)
  }

  delete(id: string): void {
    this.db
      .transaction(() => {
        this.db.prepare('DELETE FROM review_assignments WHERE list_id = ?').run(id)
        this.db.prepare('DELETE FROM review_list_items WHERE list_id = ?').run(id)
        this.db.prepare('DELETE FROM review_lists WHERE id = ?').run(id)
      })
      .immediate()
    this.onWrite()
  }

  /** A slice of the list in its order, with each call's status, total, title and time. */
  items(id: string, offset: number, limit: number): ReviewListItem[] {
    const rows = this.db
      .prepare(
        // The slice first, then the joins: joined before the OFFSET, every skipped row was
        // looked up too (3.5 times the CPU of the old query 99,900 calls into a list).
        `SELECT i.call_id AS callId, i.position, coalesce(a.status, 'new') AS status, a.total,
                c.title, c.call_at AS callAt
         FROM (SELECT call_id, position FROM review_list_items WHERE list_id = ? ORDER BY position LIMIT ? OFFSET ?) i
              LEFT JOIN annotations a ON a.call_id = i.call_id
              LEFT JOIN calls c ON c.call_id = i.call_id
         ORDER BY i.position`
      )
      .all(id, limit, offset) as Array<{
      callId: string
      position: number
      status: ReviewStatus
      total: number | null
      title: string | null
      callAt: number | null
    }>
    // position: the index in the list (stored positions keep gaps where calls were removed).
    return rows.map((r, i) => ({
      callId: r.callId,
      position: offset + i,
      status: r.status,
      total: r.total,
      callMissing: r.callAt === null,
      title: r.title,
      callAt: r.callAt
    }))
  }

  /** The list's calls in order (export, review mode). */
  callIds(id: string): string[] {
    return this.db.prepare('SELECT call_id FROM review_list_items WHERE list_id = ? ORDER BY position').pluck().all(id) as string[]
  }

  /**
   * The first call after index `index` (wrapping round) that is not reviewed yet: review
   * mode's "next unreviewed"; index -1 is before the first call (opening a list), so the
   * first call itself is a candidate. Null when every call is reviewed.
   */
  nextUnreviewed(id: string, index: number): ReviewListItem | null {
    const stored =
      index < 0
        ? undefined
        : (this.db
            .prepare('SELECT position FROM review_list_items WHERE list_id = ? ORDER BY position LIMIT 1 OFFSET ?')
            .pluck()
            .get(id, index) as number | undefined)
    // No call at the index (-1, or past the end): search from the list's start.
    const at = stored ?? Number.MIN_SAFE_INTEGER
    const sql = `SELECT i.position FROM review_list_items i LEFT JOIN annotations a ON a.call_id = i.call_id
                 WHERE i.list_id = ? AND i.position %s ? AND (a.status IS NULL OR NOT (${DONE_SQL})) ORDER BY i.position LIMIT 1`
    const found = (this.db.prepare(sql.replace('%s', '>')).pluck().get(id, at) ??
      this.db.prepare(sql.replace('%s', '<=')).pluck().get(id, at)) as number | undefined
    if (found === undefined) return null
    const foundIndex = this.db
      .prepare('SELECT count(*) FROM review_list_items WHERE list_id = ? AND position < ?')
      .pluck()
      .get(id, found) as number
    return this.items(id, foundIndex, 1)[0] ?? null
  }

  deleteAll(): void {
    this.db.exec('DELETE FROM review_assignments; DELETE FROM review_list_items; DELETE FROM review_lists;')
    this.onWrite()
  }
}
