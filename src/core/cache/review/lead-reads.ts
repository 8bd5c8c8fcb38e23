import type Database from 'better-sqlite3'
import type { AgentField } from '../../../shared/review-team'

/** One scored annotation as the lead's view reads it. */
export interface ScoredRow {
  /** Who last changed the annotation (the reviewer filter's `updated_by`). */
  reviewer: string
  total: number
  failed: number
  scorecardId: string | null
  version: number | null
  answers: string | null
  /** Null while the call is not in the cache. */
  callAt: number | null
  agent: string | null
}

function agentSql(field: AgentField | null): { sql: string; params: unknown[] } {
  if (field === null) return { sql: 'NULL', params: [] }
  // The name is checked by AgentField's pattern and quoted in the path, as search's field filter does.
  if (field.kind === 'field') return { sql: 'CAST(json_extract(c.extra, ?) AS TEXT)', params: [`$."${field.name}"`] }
  return {
    // The first item of the key in the call's list (analysis_first: cache-db registers it).
    sql: `(SELECT v.value FROM analysis_values v WHERE v.id = analysis_first(
      (SELECT l.items FROM analysis_lists l WHERE l.call = c.id),
      (SELECT analysis_ids(x.id) FROM analysis_values x JOIN analysis_keys k ON k.id = x.key_id WHERE k.key = ?)))`,
    params: [field.key]
  }
}

/** The reads of Insight's lead view over the review tables and the calls. */
export class LeadReads {
  constructor(private readonly db: Database.Database) {}

  /** Whether the first calls carry the extra field (a field a tenant sends is on every record). */
  hasExtraField(name: string): boolean {
    const path = `$."${name}"`
    return (
      this.db
        .prepare(
          "SELECT 1 FROM (SELECT extra FROM calls LIMIT 1000) WHERE json_extract(extra, ?) IS NOT NULL AND json_extract(extra, ?) <> '' LIMIT 1"
        )
        .get(path, path) !== undefined
    )
  }

  /**
   * Every score, with its call's time and agent: this workstation's own (the annotations) and,
   * on a team account, the other reviewers' evaluations pulled from the team cache
   * (`team_evaluations`, their score as the pull checked it), each under its author.
   */
  scored(agent: AgentField | null): ScoredRow[] {
    const a = agentSql(agent)
    return this.db
      .prepare(
        `SELECT a.updated_by AS reviewer, a.total, a.failed, a.scorecard_id AS scorecardId, a.scorecard_version AS version,
                a.answers, c.call_at AS callAt, ${a.sql} AS agent
         FROM annotations a LEFT JOIN calls c ON c.call_id = a.call_id
         WHERE a.total IS NOT NULL
         UNION ALL
         SELECT e.author, json_extract(e.score, '$.total'), json_extract(e.score, '$.failed'), json_extract(e.score, '$.scorecardId'),
                json_extract(e.score, '$.version'), json_extract(e.score, '$.answers'), c.call_at, ${a.sql}
         FROM team_evaluations e LEFT JOIN calls c ON c.call_id = e.call_id
         WHERE e.score IS NOT NULL AND json_valid(e.score) AND json_type(e.score, '$.total') IN ('integer', 'real')`
      )
      .all(...a.params, ...a.params) as ScoredRow[]
  }
}
