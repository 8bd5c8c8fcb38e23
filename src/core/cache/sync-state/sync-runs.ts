import { randomUUID } from 'node:crypto'
import type Database from 'better-sqlite3'
import { SyncOutcome, SyncProgress, type SyncPhase } from '../../../shared/domain'
import { AppErrorInfo } from '../../../shared/errors'

export interface SyncRunInfo {
  runId: string
  scopeKey: string
  params: unknown
  startedAt: number
  finishedAt: number | null
  outcome: SyncOutcome
  stored: number
  requests: number
  error: AppErrorInfo | null
}

interface RunRowDb {
  id: string
  scope_key: string
  params: string
  started_at: number
  finished_at: number | null
  outcome: string
  stored: number
  requests: number
  error_code: string | null
  error_message: string | null
  progress: string | null
}

/** How a run that left no progress of its own (a CLI run, one the app did not see end) is shown. */
const PHASE_OF: Record<Exclude<SyncOutcome, 'running'>, SyncPhase> = {
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
  // Stopped with its process: like a cancel, the next run continues where it stopped.
  interrupted: 'cancelled'
}

/** The `sync_runs` table: one row per sync run, its outcome and counts. */
export class SyncRuns {
  constructor(private readonly db: Database.Database) {}

  /** Runs still marked running belong to a process that is gone. */
  interruptRunning(now: number): void {
    this.db.prepare("UPDATE sync_runs SET outcome = 'interrupted', finished_at = ? WHERE outcome = 'running'").run(now)
  }

  /** `id`: the caller's when it already names the run (the app's task id). */
  start(scopeKey: string, params: unknown, now: number, id: string = randomUUID()): string {
    this.db
      .prepare("INSERT INTO sync_runs (id, scope_key, params, started_at, outcome) VALUES (?, ?, ?, ?, 'running')")
      .run(id, scopeKey, JSON.stringify(params ?? null), now)
    return id
  }

  /** The run's totals so far; called inside a page's transaction. */
  setCounts(runId: string, counts: { stored: number; requests: number }): void {
    this.db.prepare('UPDATE sync_runs SET stored = ?, requests = ? WHERE id = ?').run(counts.stored, counts.requests, runId)
  }

  finish(
    runId: string,
    outcome: SyncOutcome,
    counts: { stored: number; requests: number },
    error: AppErrorInfo | undefined,
    now: number
  ): void {
    this.db
      .prepare(
        'UPDATE sync_runs SET outcome = ?, finished_at = ?, stored = ?, requests = ?, error_code = ?, error_message = ? WHERE id = ?'
      )
      .run(SyncOutcome.parse(outcome), now, counts.stored, counts.requests, error?.code ?? null, error?.message ?? null, runId)
  }

  /** The run's last progress as the sync screen showed it (the app saves it when the run ends). */
  saveProgress(runId: string, progress: SyncProgress): void {
    this.db.prepare('UPDATE sync_runs SET progress = ? WHERE id = ?').run(JSON.stringify(progress), runId)
  }

  /**
   * The latest run that has ended, as the sync screen's panel shows it: its saved progress, or
   * (a run the app did not see end) one built from the row's outcome, counts and times.
   */
  lastEnded(): SyncProgress | null {
    const r = this.db.prepare("SELECT * FROM sync_runs WHERE outcome <> 'running' ORDER BY started_at DESC, rowid DESC LIMIT 1").get() as
      RunRowDb | undefined
    if (r === undefined) return null
    const saved = r.progress === null ? null : SyncProgress.safeParse(JSON.parse(r.progress))
    if (saved?.success) return saved.data
    const params = (JSON.parse(r.params) ?? {}) as { from?: unknown; to?: unknown }
    const elapsedSeconds = Math.max(0, ((r.finished_at ?? r.started_at) - r.started_at) / 1000)
    const p: SyncProgress = {
      runId: r.id,
      phase: PHASE_OF[SyncOutcome.exclude(['running']).parse(r.outcome)],
      stored: r.stored,
      requests: r.requests,
      windowsDone: 0,
      position: null,
      from: typeof params.from === 'number' ? params.from : r.started_at,
      to: typeof params.to === 'number' ? params.to : r.started_at,
      requestsPerMinute: elapsedSeconds > 0 ? (r.requests / elapsedSeconds) * 60 : 0,
      recordsPerSecond: elapsedSeconds > 0 ? r.stored / elapsedSeconds : 0,
      etaSeconds: null,
      waitSeconds: null,
      warnings: [],
      elapsedSeconds
    }
    if (r.error_code !== null) p.error = AppErrorInfo.parse({ code: r.error_code, message: r.error_message ?? '' })
    return p
  }

  recent(limit: number): SyncRunInfo[] {
    const rows = this.db
      .prepare('SELECT * FROM sync_runs ORDER BY started_at DESC, rowid DESC LIMIT ?')
      .all(Math.max(0, Math.floor(limit))) as RunRowDb[]
    return rows.map((r) => ({
      runId: r.id,
      scopeKey: r.scope_key,
      params: JSON.parse(r.params) as unknown,
      startedAt: r.started_at,
      finishedAt: r.finished_at,
      outcome: SyncOutcome.parse(r.outcome),
      stored: r.stored,
      requests: r.requests,
      error: r.error_code === null ? null : AppErrorInfo.parse({ code: r.error_code, message: r.error_message ?? '' })
    }))
  }
}
