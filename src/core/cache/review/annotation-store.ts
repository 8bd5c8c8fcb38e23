import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import { foldText } from '../../../shared/text/fold'
import type { Annotation, AnnotationField, ReviewStatus, Score } from '../../../shared/review'
import { fieldAt, fieldOf, toAnnotation, type AnnotationRowDb, type FieldValue } from './annotation-rows'
import { CallsightError } from '../../errors'
import type { ShareStore, TeamField } from './share-store'

export type FieldChanges = {
  status?: ReviewStatus
  tags?: string[]
  note?: string
  score?: Score | null
}

export interface WriteOptions {
  author: string
  /** The time the fields are written at (their per-field updated-at). */
  at: number
  /** Keep the values before in the history, for undo (an undo or a merge does not). */
  history: boolean
  /** A new row takes this id and author (an import keeps the exporter's). */
  identity?: { id: string; author: string; createdAt: number }
}

const FIELDS: readonly AnnotationField[] = ['status', 'tags', 'note', 'score']

const same = (a: FieldValue, b: FieldValue): boolean => JSON.stringify(a) === JSON.stringify(b)

/** Tags as stored: trimmed, once each, in the order first given. */
export const normalizeTags = (tags: readonly string[]): string[] => [...new Set(tags.map((t) => t.trim()).filter((t) => t !== ''))]

/** Above this many calls, a write tells search "any call" (it reads every annotation again). */
const LISTED_WRITES = 5_000

/**
 * The annotations table and its satellites (tags, history). Every write is one transaction;
 * `onWrite` tells search which calls' annotations moved (null: any), so that queries with
 * review filters start over and the annotations it keeps in memory read those rows again.
 */
export class AnnotationStore {
  private readonly getStmt: Database.Statement
  private readonly existsStmt: Database.Statement
  /** The save path's statements, prepared once (a save runs five to eight of them). */
  private readonly statements = new Map<string, Database.Statement>()

  constructor(
    private readonly db: Database.Database,
    private readonly onWrite: (calls: readonly string[] | null) => void,
    /** The team cache's outbox: a user's save (one kept in history) queues its changes there. */
    private readonly share: ShareStore | null = null
  ) {
    this.getStmt = db.prepare('SELECT * FROM annotations WHERE call_id = ?')
    this.existsStmt = db.prepare('SELECT 1 FROM calls WHERE call_id = ?').pluck()
  }

  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql)
    if (!st) {
      st = this.db.prepare(sql)
      this.statements.set(sql, st)
    }
    return st
  }

  get(callId: string): Annotation | null {
    const row = this.getStmt.get(callId) as AnnotationRowDb | undefined
    if (!row) return null
    const a = toAnnotation(row, this.existsStmt.get(callId) === undefined)
    const conflicts = this.share?.conflicts(callId) ?? []
    return conflicts.length > 0 ? { ...a, conflicts } : a
  }

  /** The annotations of these calls (absent ones left out). */
  getMany(callIds: readonly string[]): Map<string, Annotation> {
    const out = new Map<string, Annotation>()
    for (let i = 0; i < callIds.length; i += 500) {
      const chunk = callIds.slice(i, i + 500)
      const rows = this.db
        .prepare(
          `SELECT a.*, NOT EXISTS (SELECT 1 FROM calls c WHERE c.call_id = a.call_id) AS missing FROM annotations a WHERE a.call_id IN (${chunk.map(() => '?').join(',')})`
        )
        .all(...chunk) as Array<AnnotationRowDb & { missing: number }>
      for (const r of rows) out.set(r.call_id, toAnnotation(r, r.missing === 1))
    }
    return out
  }

  /** Every annotation, in call id order (export, back-up). */
  *all(): Generator<Annotation> {
    const stmt = this.db.prepare(
      'SELECT a.*, NOT EXISTS (SELECT 1 FROM calls c WHERE c.call_id = a.call_id) AS missing FROM annotations a ORDER BY a.call_id'
    )
    // Read in one go: a generator held open across writes would keep a statement busy.
    const rows = stmt.all() as Array<AnnotationRowDb & { missing: number }>
    for (const r of rows) yield toAnnotation(r, r.missing === 1)
  }

  count(): number {
    return this.db.prepare('SELECT count(*) FROM annotations').pluck().get() as number
  }

  /** The fields given, written at `opts.at`; only those that differ are written (and kept in history). */
  write(callId: string, changes: FieldChanges, opts: WriteOptions): Annotation {
    const result = this.db.transaction(() => this.writeInTx(callId, changes, opts)).immediate()
    this.onWrite([callId])
    return result
  }

  /** Several calls' changes in one transaction (import). */
  writeMany(items: ReadonlyArray<{ callId: string; changes: FieldChanges; opts: WriteOptions }>): void {
    if (items.length === 0) return
    this.db
      .transaction(() => {
        for (const it of items) this.writeInTx(it.callId, it.changes, it.opts)
      })
      .immediate()
    this.onWrite(items.length > LISTED_WRITES ? null : items.map((it) => it.callId))
  }

  private writeInTx(callId: string, changes: FieldChanges, opts: WriteOptions): Annotation {
    let row = this.getStmt.get(callId) as AnnotationRowDb | undefined
    if (!row) {
      const who = opts.identity ?? { id: randomUUID(), author: opts.author, createdAt: opts.at }
      // A new row starts at its creation time for every field, so any later write wins over it.
      // It takes its call's time and row id (migrations 9 and 11) when the call is cached.
      this.stmt(
        `INSERT INTO annotations (call_id, id, author, created_at, status_at, tags_at, note_at, score_at, updated_at, updated_by, call_at, call_row)
           SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, c.call_at, c.id FROM (SELECT 1) LEFT JOIN calls c ON c.call_id = ?`
      ).run(callId, who.id, who.author, who.createdAt, 0, 0, 0, 0, opts.at, opts.author, callId)
      row = this.getStmt.get(callId) as AnnotationRowDb
    }
    const before = toAnnotation(row, false)
    const history = this.stmt(
      'INSERT INTO annotation_history (call_id, field, before, before_at, after, at, author) VALUES (?, ?, ?, ?, ?, ?, ?)'
    )
    const written: AnnotationField[] = []
    for (const field of FIELDS) {
      const value = changes[field]
      if (value === undefined) continue
      const next = field === 'tags' ? normalizeTags(value as string[]) : (value as FieldValue)
      if (same(fieldOf(before, field), next)) continue
      if (opts.history) {
        history.run(
          callId,
          field,
          JSON.stringify(fieldOf(before, field)),
          fieldAt(before, field),
          JSON.stringify(next),
          opts.at,
          opts.author
        )
      }
      this.setField(callId, field, next, opts.at)
      written.push(field)
    }
    if (written.length > 0) this.touch(callId, opts.at, opts.author)
    const after = toAnnotation(this.getStmt.get(callId) as AnnotationRowDb, this.existsStmt.get(callId) === undefined)
    if (opts.history && written.length > 0) this.queue(after, written, opts.at)
    return after
  }

  /** A user's change, queued for the team cache in the same transaction as the save (when sharing is on). */
  private queue(after: Annotation, written: readonly AnnotationField[], at: number): void {
    if (!this.share?.enabled) return
    const team = written.filter((f): f is TeamField => f === 'status' || f === 'tags')
    this.share.enqueueInTx(after, team, written.includes('note') || written.includes('score'), at)
  }

  /**
   * A person resolves a conflict of a team field: the value chosen (theirs or mine) becomes
   * this cache's and, through the outbox, the team's; the conflict is marked resolved here
   * and in the team cache.
   */
  resolveConflict(conflictId: string, choice: 'mine' | 'theirs', author: string, at: number): Annotation {
    const share = this.share
    if (!share) throw new CallsightError('NotFound', 'This cache keeps no conflicts.')
    const callId = this.db
      .transaction(() => {
        const c = share.conflictById(conflictId)
        if (!c) throw new CallsightError('NotFound', 'That conflict does not exist or was resolved already.')
        const value = choice === 'mine' ? c.mine : c.theirs
        const wasWaiting = share.waiting()
        this.writeInTx(c.callId, { [c.field]: JSON.parse(value) as FieldValue }, { author, at, history: true })
        // Unchanged here (the value chosen is already this cache's): still the team's to take.
        if (share.waiting() === wasWaiting && share.enabled) {
          const now = this.getStmt.get(c.callId) as AnnotationRowDb
          share.enqueueInTx(toAnnotation(now, false), [c.field], false, at)
        }
        share.resolveInTx(c, value, author, at)
        return c.callId
      })
      .immediate()
    this.onWrite([callId])
    return this.get(callId)!
  }

  /** The row's last write: the latest of its fields' (an import may bring older ones). */
  private touch(callId: string, at: number, author: string): void {
    this.stmt(
      'UPDATE annotations SET updated_by = CASE WHEN ? >= updated_at THEN ? ELSE updated_by END, updated_at = max(updated_at, ?) WHERE call_id = ?'
    ).run(at, author, at, callId)
  }

  private setField(callId: string, field: AnnotationField, value: FieldValue, at: number): void {
    switch (field) {
      case 'status':
        this.stmt('UPDATE annotations SET status = ?, status_at = ? WHERE call_id = ?').run(value, at, callId)
        return
      case 'note': {
        const note = value as string
        this.stmt('UPDATE annotations SET note = ?, note_folded = ?, note_at = ? WHERE call_id = ?').run(note, foldText(note), at, callId)
        return
      }
      case 'tags': {
        const tags = value as string[]
        this.stmt('UPDATE annotations SET tags = ?, tags_at = ? WHERE call_id = ?').run(JSON.stringify(tags), at, callId)
        this.stmt('DELETE FROM annotation_tags WHERE call_id = ?').run(callId)
        // The call's time (migration 9) comes with each tag row: the tag filter walks them in date order.
        const put = this.stmt(
          'INSERT OR IGNORE INTO annotation_tags (tag, call_id, call_at) VALUES (?, ?, (SELECT a.call_at FROM annotations a WHERE a.call_id = ?))'
        )
        for (const t of tags) put.run(t, callId, callId)
        return
      }
      case 'score': {
        const s = value as Score | null
        this.stmt(
          'UPDATE annotations SET scorecard_id = ?, scorecard_version = ?, answers = ?, total = ?, failed = ?, score_at = ? WHERE call_id = ?'
        ).run(
          s?.scorecardId ?? null,
          s?.version ?? null,
          s ? JSON.stringify(s.answers) : null,
          s?.total ?? null,
          s?.failed ? 1 : 0,
          at,
          callId
        )
        return
      }
    }
  }

  /**
   * Undoes the latest change not undone yet (of one call, or of any): the field takes its
   * value before, written now (so it wins a later merge like any edit). Null when there is
   * nothing to undo.
   */
  undo(callId: string | null, author: string, at: number): Annotation | null {
    const result = this.db
      .transaction(() => {
        const h = (
          callId === null
            ? this.stmt('SELECT * FROM annotation_history WHERE undone = 0 ORDER BY seq DESC LIMIT 1').get()
            : this.stmt('SELECT * FROM annotation_history WHERE undone = 0 AND call_id = ? ORDER BY seq DESC LIMIT 1').get(callId)
        ) as { seq: number; call_id: string; field: AnnotationField; before: string | null } | undefined
        if (!h) return null
        this.stmt('UPDATE annotation_history SET undone = 1 WHERE seq = ?').run(h.seq)
        this.setField(h.call_id, h.field, JSON.parse(h.before ?? 'null') as FieldValue, at)
        this.touch(h.call_id, at, author)
        this.queue(toAnnotation(this.getStmt.get(h.call_id) as AnnotationRowDb, false), [h.field], at)
        return h.call_id
      })
      .immediate()
    if (result === null) return null
    this.onWrite([result])
    return this.get(result)
  }

  /**
   * After a full pass of a sync over [from, to) of a scope: its annotated member calls the
   * pass did not return are marked dropped by the service (at `at`, kept from the first time),
   * those it returned are not. Returns the call ids newly marked.
   */
  markServiceDropped(scopeKey: string, from: number, to: number, seen: ReadonlySet<string>, at: number): string[] {
    const marked: string[] = []
    const unmarked: string[] = []
    this.db
      .transaction(() => {
        const rows = this.db
          .prepare(
            `SELECT a.call_id, a.service_dropped_at FROM annotations a
             JOIN calls c ON c.call_id = a.call_id
             JOIN scope_members m ON m.call = c.id AND m.scope = (SELECT id FROM sync_scopes WHERE scope_key = ?)
             WHERE c.call_at >= ? AND c.call_at < ?`
          )
          .raw()
          .all(scopeKey, from, to) as Array<[string, number | null]>
        const set = this.db.prepare('UPDATE annotations SET service_dropped_at = ? WHERE call_id = ?')
        for (const [callId, droppedAt] of rows) {
          if (seen.has(callId)) {
            if (droppedAt !== null) {
              set.run(null, callId)
              unmarked.push(callId)
            }
          } else if (droppedAt === null) {
            set.run(at, callId)
            marked.push(callId)
          }
        }
      })
      .immediate()
    // The "dropped by the service" filter reads the mark: queries with review filters start over.
    if (marked.length > 0 || unmarked.length > 0) {
      const changed = [...marked, ...unmarked]
      this.onWrite(changed.length > LISTED_WRITES ? null : changed)
    }
    return marked
  }

  /** Tags in use with how many calls carry each, most used first (autocomplete, Insight). */
  /** Each scored call's total, with when the call was made (null: the call is not in the cache). */
  scoredTotals(): Array<[total: number, callAt: number | null]> {
    return this.db
      .prepare('SELECT a.total, c.call_at FROM annotations a LEFT JOIN calls c ON c.call_id = a.call_id WHERE a.total IS NOT NULL')
      .raw(true)
      .all() as Array<[number, number | null]>
  }

  /** How many annotations have each status. */
  statusCounts(): Array<{ status: string; count: number }> {
    return this.db.prepare('SELECT status, count(*) AS count FROM annotations GROUP BY status ORDER BY status').all() as Array<{
      status: string
      count: number
    }>
  }

  tagCounts(): Array<{ tag: string; count: number }> {
    return this.db.prepare('SELECT tag, count(*) AS count FROM annotation_tags GROUP BY tag ORDER BY count DESC, tag').all() as Array<{
      tag: string
      count: number
    }>
  }

  /** Forgets every annotation and its history (clear cache, when asked not to keep them). */
  deleteAll(): void {
    this.db
      .transaction(() => {
        this.db.exec('DELETE FROM annotations; DELETE FROM annotation_tags; DELETE FROM annotation_history;')
      })
      .immediate()
    this.onWrite(null)
  }
}
