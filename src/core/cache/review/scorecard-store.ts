import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import type { Criterion, Scorecard, ScorecardDefinition } from '../../../shared/review'

interface ScorecardRowDb {
  id: string
  version: number
  name: string
  criteria: string
  created_at: number
  author: string
}

const toScorecard = (r: ScorecardRowDb): Scorecard => ({
  id: r.id,
  version: r.version,
  name: r.name,
  criteria: JSON.parse(r.criteria) as Criterion[],
  createdAt: r.created_at,
  author: r.author
})

/**
 * Scorecards, versioned: saving a changed definition adds a version, and scores keep the
 * version they answered. Versions are never deleted (a score must always find its form).
 */
export class ScorecardStore {
  constructor(private readonly db: Database.Database) {}

  /** The newest version of each scorecard, by name. */
  latest(): Scorecard[] {
    const rows = this.db
      .prepare(
        `SELECT s.* FROM scorecards s WHERE s.version = (SELECT max(version) FROM scorecards t WHERE t.id = s.id) ORDER BY s.name COLLATE NOCASE, s.id`
      )
      .all() as ScorecardRowDb[]
    return rows.map(toScorecard)
  }

  /** One version, or the newest when `version` is absent. */
  get(id: string, version?: number): Scorecard | null {
    const row = (
      version === undefined
        ? this.db.prepare('SELECT * FROM scorecards WHERE id = ? ORDER BY version DESC LIMIT 1').get(id)
        : this.db.prepare('SELECT * FROM scorecards WHERE id = ? AND version = ?').get(id, version)
    ) as ScorecardRowDb | undefined
    return row ? toScorecard(row) : null
  }

  /** Every version of every scorecard (export sheets need the ones scores answered). */
  allVersions(): Scorecard[] {
    return (this.db.prepare('SELECT * FROM scorecards ORDER BY id, version').all() as ScorecardRowDb[]).map(toScorecard)
  }

  /**
   * Saves a definition: a new scorecard (id absent or unknown), a new version when it differs
   * from the newest, or nothing when it is the same.
   */
  save(def: ScorecardDefinition, id: string | undefined, author: string, at: number): Scorecard {
    const current = id === undefined ? null : this.get(id)
    if (current && current.name === def.name && JSON.stringify(current.criteria) === JSON.stringify(def.criteria)) return current
    const key = id ?? randomUUID()
    const version = (current?.version ?? 0) + 1
    this.db
      .prepare('INSERT INTO scorecards (id, version, name, criteria, created_at, author) VALUES (?, ?, ?, ?, ?, ?)')
      .run(key, version, def.name, JSON.stringify(def.criteria), at, author)
    return this.get(key, version)!
  }

  /** A version as another cache had it (import): same id, number, criteria and author. */
  insertVersion(card: Scorecard): void {
    this.db
      .prepare('INSERT OR IGNORE INTO scorecards (id, version, name, criteria, created_at, author) VALUES (?, ?, ?, ?, ?, ?)')
      .run(card.id, card.version, card.name, JSON.stringify(card.criteria), card.createdAt, card.author)
  }
}
