import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { Annotation, ReviewConflict } from '../../../shared/review'
import type { AnnotationRowDb } from './annotation-rows'
import { toAnnotation } from './annotation-rows'

/** The team's fields of a call: any analyst changes them, merged field by field. */
export const TEAM_FIELDS = ['status', 'tags'] as const
export type TeamField = (typeof TEAM_FIELDS)[number]

/**
 * What a queued change is: a team field, an evaluation, a conflict's resolution, or the
 * lead's and reviewers' shared work (a scorecard version, a list, an assignment, a
 * calibration round, a round's answers of one call, a submission, the deletion of a list
 * or a round: a `tombstone`, its kind in `field`; calls removed from a list: a
 * `list-removal`, the list in `call_id`, the calls in `value`).
 */
export type OutboxKind =
  | 'field'
  | 'evaluation'
  | 'conflict'
  | 'scorecard'
  | 'list'
  | 'assignment'
  | 'calibration'
  | 'calibration-answer'
  | 'calibration-submit'
  | 'tombstone'
  | 'list-removal'

/** A change waiting for the team cache (review_outbox). */
export interface OutboxEntry {
  seq: number
  changeId: string
  kind: OutboxKind
  callId: string
  /** The field of a `field` change; the conflict's id for a `resolve`. */
  field: string | null
  /** JSON: the field's new value, or the evaluation ({note, score, createdAt}). */
  value: string
  /** JSON: the team's value this workstation last saw ('null': none). */
  base: string | null
  at: number
}

/** What a push did with one entry, as the local side records it. */
export type PushOutcome =
  | { changeId: string; result: 'applied' | 'same' | 'stale' | 'duplicate' }
  /** The team cache's roles said no (an analyst's deletion of a lead's list): undone here. */
  | { changeId: string; result: 'refused' }
  | { changeId: string; result: 'conflict'; theirs: string; theirAuthor: string; theirAt: number }

/** The evaluation a change carries (JSON in the outbox and the team cache's row). */
export interface EvaluationValue {
  note: string
  /** JSON of the Score, or null. */
  score: string | null
  createdAt: number
}

const json = (v: unknown): string => JSON.stringify(v)

/**
 * The local half of sharing review work through the team cache (migration 15): the outbox
 * each save appends to in its own transaction, the team's values last seen, conflicts and
 * others' evaluations. Nothing here reaches the network: core/team pushes and pulls.
 */
export class ShareStore {
  private readonly statements = new Map<string, Database.Statement>()

  constructor(
    private readonly db: Database.Database,
    /** A pulled evaluation was written: queries whose review filters read the team's evaluations follow it. */
    private readonly onEvaluation: (calls: readonly string[]) => void = () => undefined
  ) {}

  private stmt(sql: string): Database.Statement {
    let st = this.statements.get(sql)
    if (!st) {
      st = this.db.prepare(sql)
      this.statements.set(sql, st)
    }
    return st
  }

  /** Several writes in one transaction (a pulled batch with its cursor); annotation writes nest in it. */
  transact(fn: () => void): void {
    this.db.transaction(fn).immediate()
  }

  /** A write and the changes it queues, in one transaction (a savepoint inside another). */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate()
  }

  getValue(key: string): string | null {
    const v = this.stmt('SELECT value FROM review_share WHERE key = ?').pluck().get(key) as string | undefined
    return v ?? null
  }

  setValue(key: string, value: string): void {
    this.stmt('INSERT INTO review_share (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value)
  }

  /** Saves are queued only once sharing is on: a cache never shared keeps no outbox. */
  get enabled(): boolean {
    return this.getValue('enabled') === '1'
  }

  /**
   * Turns sharing on: every annotation's fields set so far are queued once, so work done
   * before the first push reaches the team too. Returns how many changes were queued.
   */
  enable(at: number): number {
    return this.db
      .transaction(() => {
        if (this.enabled) return 0
        this.setValue('enabled', '1')
        let n = 0
        const rows = this.db.prepare('SELECT * FROM annotations').all() as AnnotationRowDb[]
        for (const r of rows) {
          const a = toAnnotation(r, false)
          const fields: TeamField[] = []
          if (a.statusAt > 0) fields.push('status')
          if (a.tagsAt > 0) fields.push('tags')
          n += this.enqueueInTx(a, fields, a.noteAt > 0 || a.scoreAt > 0, Math.max(a.updatedAt, 0) || at)
        }
        return n
      })
      .immediate()
  }

  /**
   * Inside a save's transaction: queues the team fields it changed (each with its base) and,
   * when the note or score changed, the author's evaluation as it now stands.
   */
  enqueueInTx(after: Annotation, fields: readonly TeamField[], evaluation: boolean, at: number): number {
    const put = this.stmt('INSERT INTO review_outbox (change_id, kind, call_id, field, value, base, at) VALUES (?, ?, ?, ?, ?, ?, ?)')
    for (const f of fields) {
      put.run(randomUUID(), 'field', after.callId, f, json(after[f]), this.baseOf(after.callId, f), at)
    }
    if (evaluation) {
      const value: EvaluationValue = { note: after.note, score: after.score ? json(after.score) : null, createdAt: after.createdAt }
      put.run(randomUUID(), 'evaluation', after.callId, null, json(value), null, at)
    }
    return fields.length + (evaluation ? 1 : 0)
  }

  /** The value the next change of a field is based on: the last queued one, else the team's last seen. */
  private baseOf(callId: string, field: string): string {
    const queued = this.stmt(
      'SELECT value FROM review_outbox WHERE call_id = ? AND field = ? AND refused IS NULL ORDER BY seq DESC LIMIT 1'
    )
      .pluck()
      .get(callId, field) as string | undefined
    if (queued !== undefined) return queued
    const seen = this.stmt('SELECT value FROM review_team_seen WHERE call_id = ? AND field = ?').pluck().get(callId, field) as
      string | undefined
    return seen ?? 'null'
  }

  /**
   * Queues a change of shared team work (not a field or an evaluation: those are queued by
   * the save itself) when sharing is on; nothing otherwise. Call it inside the write's
   * transaction. `key` is the outbox's call_id column: the record's own id or call.
   */
  enqueueRecord(
    kind: Exclude<OutboxKind, 'field' | 'evaluation' | 'conflict'>,
    key: string,
    field: string | null,
    value: unknown,
    at: number
  ): void {
    if (!this.enabled) return
    this.stmt('INSERT INTO review_outbox (change_id, kind, call_id, field, value, base, at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      randomUUID(),
      kind,
      key,
      field,
      json(value),
      null,
      at
    )
  }

  /** Changes waiting (not refused), oldest first. */
  pending(limit: number): OutboxEntry[] {
    const rows = this.stmt(
      'SELECT seq, change_id, kind, call_id, field, value, base, at FROM review_outbox WHERE refused IS NULL ORDER BY seq LIMIT ?'
    ).all(limit) as Array<{
      seq: number
      change_id: string
      kind: OutboxEntry['kind']
      call_id: string
      field: string | null
      value: string
      base: string | null
      at: number
    }>
    return rows.map((r) => ({
      seq: r.seq,
      changeId: r.change_id,
      kind: r.kind,
      callId: r.call_id,
      field: r.field,
      value: r.value,
      base: r.base,
      at: r.at
    }))
  }

  /** "N changes waiting": queued and not refused. */
  waiting(): number {
    return this.stmt('SELECT count(*) FROM review_outbox WHERE refused IS NULL').pluck().get() as number
  }

  refusedCount(): number {
    return this.stmt('SELECT count(*) FROM review_outbox WHERE refused IS NOT NULL').pluck().get() as number
  }

  /** The team cache refused these changes (a removed role): kept with the reason, not pushed again until retried. */
  refuse(changeIds: readonly string[], reason: string): void {
    const st = this.stmt('UPDATE review_outbox SET refused = ? WHERE change_id = ?')
    this.db.transaction(() => {
      for (const id of changeIds) st.run(reason, id)
    })()
  }

  /** Refused changes go back in the queue (the role was restored, or another login set up). */
  retryRefused(): number {
    return this.stmt('UPDATE review_outbox SET refused = NULL WHERE refused IS NOT NULL').run().changes
  }

  /** After the team cache committed a push: the entries leave the queue, their outcome recorded. */
  pushed(entries: readonly OutboxEntry[], outcomes: readonly PushOutcome[], role: string): void {
    const byId = new Map(entries.map((e) => [e.changeId, e]))
    this.db
      .transaction(() => {
        const del = this.stmt('DELETE FROM review_outbox WHERE change_id = ?')
        for (const o of outcomes) {
          const e = byId.get(o.changeId)
          if (!e) continue
          del.run(o.changeId)
          if (e.kind !== 'field' || e.field === null) continue
          if (o.result === 'applied' || o.result === 'same') this.seen(e.callId, e.field, e.value, role, e.at)
          else if (o.result === 'conflict') {
            this.seen(e.callId, e.field, o.theirs, o.theirAuthor, o.theirAt)
            this.putConflict({
              id: o.changeId,
              callId: e.callId,
              field: e.field as TeamField,
              theirs: o.theirs,
              theirAuthor: o.theirAuthor,
              theirAt: o.theirAt,
              mine: e.value,
              myAuthor: role,
              myAt: e.at
            })
          }
        }
      })
      .immediate()
  }

  seen(callId: string, field: string, value: string, author: string, at: number): void {
    this.stmt(
      `INSERT INTO review_team_seen (call_id, field, value, author, at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (call_id, field) DO UPDATE SET value = excluded.value, author = excluded.author, at = excluded.at`
    ).run(callId, field, value, author, at)
  }

  /**
   * The deletion of this list or round waits to be pushed: a pull (run before the push
   * reached the team cache) must not bring it back here meanwhile.
   */
  deletionPending(id: string): boolean {
    return (
      this.stmt("SELECT 1 FROM review_outbox WHERE call_id = ? AND kind = 'tombstone' AND refused IS NULL LIMIT 1").get(id) !== undefined
    )
  }

  /**
   * The removal of this call from this list waits to be pushed: a pull (run before the push
   * reached the team cache) must not put the call back here meanwhile.
   */
  removalPending(listId: string, callId: string): boolean {
    return (
      this.stmt(
        `SELECT 1 FROM review_outbox o WHERE o.call_id = ? AND o.kind = 'list-removal' AND o.refused IS NULL
         AND EXISTS (SELECT 1 FROM json_each(o.value, '$.callIds') j WHERE j.value = ?) LIMIT 1`
      ).get(listId, callId) !== undefined
    )
  }

  /** A change of this field is waiting to be pushed: a pulled value must not overwrite it. */
  hasPending(callId: string, field: string): boolean {
    return (
      this.stmt('SELECT 1 FROM review_outbox WHERE call_id = ? AND field = ? AND refused IS NULL LIMIT 1').get(callId, field) !== undefined
    )
  }

  putConflict(c: ReviewConflict, resolved?: { value: string; by: string; at: number } | null): void {
    this.stmt(
      `INSERT INTO review_conflicts (id, call_id, field, theirs, their_author, their_at, mine, my_author, my_at, resolved_value, resolved_by, resolved_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET resolved_value = coalesce(review_conflicts.resolved_value, excluded.resolved_value),
         resolved_by = coalesce(review_conflicts.resolved_by, excluded.resolved_by),
         resolved_at = coalesce(review_conflicts.resolved_at, excluded.resolved_at)`
    ).run(
      c.id,
      c.callId,
      c.field,
      c.theirs,
      c.theirAuthor,
      c.theirAt,
      c.mine,
      c.myAuthor,
      c.myAt,
      resolved?.value ?? null,
      resolved?.by ?? null,
      resolved?.at ?? null
    )
  }

  /** The unresolved conflicts of a call, oldest first (the annotation's `conflicts`). */
  conflicts(callId: string): ReviewConflict[] {
    const rows = this.stmt(
      `SELECT id, call_id, field, theirs, their_author, their_at, mine, my_author, my_at FROM review_conflicts
       WHERE call_id = ? AND resolved_at IS NULL ORDER BY my_at, id`
    ).all(callId) as Array<Record<string, string | number>>
    return rows.map((r) => ({
      id: r['id'] as string,
      callId: r['call_id'] as string,
      field: r['field'] as TeamField,
      theirs: r['theirs'] as string,
      theirAuthor: r['their_author'] as string,
      theirAt: r['their_at'] as number,
      mine: r['mine'] as string,
      myAuthor: r['my_author'] as string,
      myAt: r['my_at'] as number
    }))
  }

  conflictById(id: string): ReviewConflict | null {
    const row = this.stmt('SELECT call_id FROM review_conflicts WHERE id = ?').pluck().get(id) as string | undefined
    return row === undefined ? null : (this.conflicts(row).find((c) => c.id === id) ?? null)
  }

  /** Marks a conflict resolved here and queues the resolution for the team (inside the resolve's transaction). */
  resolveInTx(c: ReviewConflict, value: string, by: string, at: number): void {
    this.stmt('UPDATE review_conflicts SET resolved_value = ?, resolved_by = ?, resolved_at = ? WHERE id = ?').run(value, by, at, c.id)
    this.stmt('INSERT INTO review_outbox (change_id, kind, call_id, field, value, base, at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
      randomUUID(),
      'conflict',
      c.callId,
      c.id,
      value,
      null,
      at
    )
  }

  putTeamEvaluation(callId: string, author: string, score: string | null, note: string, changedAt: number): void {
    this.stmt(
      `INSERT INTO team_evaluations (call_id, author, score, note, changed_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (call_id, author) DO UPDATE SET score = excluded.score, note = excluded.note, changed_at = excluded.changed_at
       WHERE excluded.changed_at >= team_evaluations.changed_at`
    ).run(callId, author, score, note, changedAt)
    this.onEvaluation([callId])
  }

  /** Other reviewers' evaluations of a call (the lead's view shows them side by side). */
  teamEvaluations(callId: string): Array<{ author: string; score: string | null; note: string; changedAt: number }> {
    return (
      this.stmt('SELECT author, score, note, changed_at FROM team_evaluations WHERE call_id = ? ORDER BY author').all(callId) as Array<{
        author: string
        score: string | null
        note: string
        changed_at: number
      }>
    ).map((r) => ({ author: r.author, score: r.score, note: r.note, changedAt: r.changed_at }))
  }
}
