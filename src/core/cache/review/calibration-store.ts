import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { Answers } from '../../../shared/review'
import type { CallAnswers, CalibrationInfo } from '../../../shared/review-team'
import { CallsightError } from '../../errors'

interface SessionRowDb {
  id: string
  name: string
  scorecard_id: string
  scorecard_version: number
  call_ids: string
  reviewers: string
  reference: string
  created_at: number
  created_by: string
}

export interface NewSession {
  name: string
  scorecardId: string
  scorecardVersion: number
  callIds: readonly string[]
  reviewers: readonly string[]
}

/**
 * Calibration sessions: several reviewers score the same calls with one scorecard version,
 * blind, and the lead compares. Their answers live here only, never in the calls'
 * annotations. The store keeps rows; who may read what (the blind rule) is decided by
 * review/calibration.ts.
 */
export class CalibrationStore {
  constructor(private readonly db: Database.Database) {}

  create(s: NewSession, by: string, at: number): CalibrationInfo {
    const id = randomUUID()
    this.db
      .prepare(
        `INSERT INTO calibration_sessions (id, name, scorecard_id, scorecard_version, call_ids, reviewers, created_at, created_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
      )
      .run(id, s.name, s.scorecardId, s.scorecardVersion, JSON.stringify(s.callIds), JSON.stringify(s.reviewers), at, by)
    return this.info(id)
  }

  /** A round as the team cache has it (pulled): same id; nothing when it is here already. */
  put(s: NewSession & { id: string }, by: string, at: number): void {
    this.db
      .prepare(
        `INSERT OR IGNORE INTO calibration_sessions (id, name, scorecard_id, scorecard_version, call_ids, reviewers, created_at, created_by)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`
      )
      .run(s.id, s.name, s.scorecardId, s.scorecardVersion, JSON.stringify(s.callIds), JSON.stringify(s.reviewers), at, by)
  }

  exists(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM calibration_sessions WHERE id = ?').get(id) !== undefined
  }

  /** One reviewer's answers of one call as they now stand (what a push sends). */
  answersOf(id: string, reviewer: string, callId: string): Answers {
    const rows = this.db
      .prepare('SELECT criterion_id, answer FROM calibration_answers WHERE session_id = ? AND reviewer = ? AND call_id = ?')
      .raw(true)
      .all(id, reviewer, callId) as Array<[string, number]>
    return Object.fromEntries(rows)
  }

  /** Replaces one reviewer's answers of one call with the pulled ones. */
  replaceAnswers(id: string, reviewer: string, callId: string, answers: Answers, at: number): void {
    this.db
      .transaction(() => {
        this.db.prepare('DELETE FROM calibration_answers WHERE session_id = ? AND reviewer = ? AND call_id = ?').run(id, reviewer, callId)
        this.saveAnswers(id, reviewer, callId, answers, at)
      })
      .immediate()
  }

  /** Replaces the reference answers of one call with the pulled ones. */
  replaceReference(id: string, callId: string, answers: Answers): void {
    const ref = this.reference(id)
    const call: Answers = {}
    for (const [k, v] of Object.entries(answers)) if (v !== null) call[k] = v
    ref[callId] = call
    this.db.prepare('UPDATE calibration_sessions SET reference = ? WHERE id = ?').run(JSON.stringify(ref), id)
  }

  private row(id: string): SessionRowDb {
    const row = this.db.prepare('SELECT * FROM calibration_sessions WHERE id = ?').get(id) as SessionRowDb | undefined
    if (!row) throw new CallsightError('NotFound', 'That calibration session no longer exists.')
    return row
  }

  private toInfo(r: SessionRowDb): CalibrationInfo {
    return {
      id: r.id,
      name: r.name,
      scorecardId: r.scorecard_id,
      scorecardVersion: r.scorecard_version,
      callIds: JSON.parse(r.call_ids) as string[],
      reviewers: JSON.parse(r.reviewers) as string[],
      createdAt: r.created_at,
      createdBy: r.created_by,
      submitted: this.db
        .prepare('SELECT reviewer FROM calibration_submissions WHERE session_id = ? ORDER BY submitted_at, reviewer')
        .pluck()
        .all(r.id) as string[]
    }
  }

  info(id: string): CalibrationInfo {
    return this.toInfo(this.row(id))
  }

  list(): CalibrationInfo[] {
    const rows = this.db.prepare('SELECT * FROM calibration_sessions ORDER BY created_at DESC, name').all() as SessionRowDb[]
    return rows.map((r) => this.toInfo(r))
  }

  /** When the reviewer submitted, or null. */
  submittedAt(id: string, reviewer: string): number | null {
    const at = this.db
      .prepare('SELECT submitted_at FROM calibration_submissions WHERE session_id = ? AND reviewer = ?')
      .pluck()
      .get(id, reviewer) as number | undefined
    return at ?? null
  }

  /** Every reviewer's answers: reviewer → call → criterion → answer. */
  answers(id: string): Map<string, CallAnswers> {
    const rows = this.db
      .prepare('SELECT reviewer, call_id, criterion_id, answer FROM calibration_answers WHERE session_id = ?')
      .raw(true)
      .all(id) as Array<[string, string, string, number | null]>
    const out = new Map<string, CallAnswers>()
    for (const [reviewer, callId, criterionId, answer] of rows) {
      const mine = out.get(reviewer) ?? {}
      ;(mine[callId] ??= {})[criterionId] = answer
      out.set(reviewer, mine)
    }
    return out
  }

  /** Writes one reviewer's answers for one call (a null answer clears it). */
  saveAnswers(id: string, reviewer: string, callId: string, answers: Answers, at: number): void {
    const put = this.db.prepare(
      `INSERT INTO calibration_answers (session_id, reviewer, call_id, criterion_id, answer, at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT DO UPDATE SET answer = excluded.answer, at = excluded.at`
    )
    const del = this.db.prepare(
      'DELETE FROM calibration_answers WHERE session_id = ? AND reviewer = ? AND call_id = ? AND criterion_id = ?'
    )
    this.db
      .transaction(() => {
        for (const [criterionId, answer] of Object.entries(answers)) {
          if (answer === null) del.run(id, reviewer, callId, criterionId)
          else put.run(id, reviewer, callId, criterionId, answer, at)
        }
      })
      .immediate()
  }

  submit(id: string, reviewer: string, at: number): void {
    this.db
      .prepare('INSERT OR IGNORE INTO calibration_submissions (session_id, reviewer, submitted_at) VALUES (?, ?, ?)')
      .run(id, reviewer, at)
  }

  reference(id: string): CallAnswers {
    return JSON.parse(this.row(id).reference) as CallAnswers
  }

  setReference(id: string, callId: string, answers: Answers): void {
    const ref = this.reference(id)
    const call = { ...ref[callId], ...answers }
    for (const [k, v] of Object.entries(call)) if (v === null) delete call[k]
    ref[callId] = call
    this.db.prepare('UPDATE calibration_sessions SET reference = ? WHERE id = ?').run(JSON.stringify(ref), id)
  }

  delete(id: string): void {
    this.db
      .transaction(() => {
        for (const t of ['calibration_answers', 'calibration_submissions']) this.db.prepare(`DELETE FROM ${t} WHERE session_id = ?`).run(id)
        this.db.prepare('DELETE FROM calibration_sessions WHERE id = ?').run(id)
      })
      .immediate()
  }

  deleteAll(): void {
    this.db.exec('DELETE FROM calibration_answers; DELETE FROM calibration_submissions; DELETE FROM calibration_sessions;')
  }
}
