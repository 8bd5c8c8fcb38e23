import { lastChange, PG_SCHEMA_VERSION, readWorkerState, schemaVersion, type WorkerScopeState } from '../../core/team'
import { q } from '../../core/team/connection'
import type { WorkerHealth } from '../../core/team/worker-state'
import { parseFlags, required } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'
import { TEAM_DB_FLAGS, teamDbOptions, withTeamSchema } from '../team-db'
import type pg from 'pg'

/** The worst health decides the exit code: a stopped worker before a stale one before a failing run. */
const RANK: Record<WorkerHealth, number> = { healthy: 0, failing: 1, stale: 2, stopped: 3 }
const EXIT_OF: Record<WorkerHealth, number> = {
  healthy: EXIT.ok,
  failing: EXIT.workerFailing,
  stale: EXIT.workerStale,
  stopped: EXIT.workerStopped
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString())

/** One scope as `--json` gives it: a stable object for scripts (fields are only ever added). */
function scopeJson(w: WorkerScopeState): Record<string, unknown> {
  return {
    name: w.name,
    scopeKey: w.scope_key,
    health: w.health,
    status: w.status,
    worker: w.owner ?? w.worker,
    standby: w.standby,
    runStartedAt: w.running ? iso(w.run_started_at) : null,
    heartbeatAgeSeconds: w.heartbeat_age_ms === null ? null : Math.round(w.heartbeat_age_ms / 1000),
    lastOutcome: w.last_outcome,
    lastFinishedAt: iso(w.last_finished_at),
    lastSuccessAt: iso(w.last_success_at),
    lastError: w.last_error_code === null ? null : { code: w.last_error_code, message: w.last_error_message, detail: w.last_error_detail },
    failingSince: w.health === 'failing' ? iso(w.failing_since ?? w.last_finished_at) : null,
    nextRunAt: iso(w.next_run_at),
    overdueSince: iso(w.overdue_since),
    lagSeconds: w.last_success_at === null ? null : Math.max(0, Math.round((w.now_ms - w.last_success_at) / 1000)),
    fetched: w.last_fetched,
    changed: w.last_stored
  }
}

function stateLine(w: WorkerScopeState): string {
  const when = (ms: number | null): string => iso(ms) ?? 'never'
  const base = {
    running: `running since ${when(w.run_started_at)}`,
    interrupted: `interrupted: the worker stopped during the run started ${when(w.run_started_at)} (killed?); its next run continues it`,
    stale: `stale: running since ${when(w.run_started_at)}, no heartbeat for ${Math.round((w.heartbeat_age_ms ?? 0) / 1000)} s (hung or unreachable?)`,
    idle: `idle, last run ${w.last_outcome ?? 'none'}`
  }[w.status]
  if (w.status === 'idle' && w.health === 'stale')
    return `stale: the worker has not renewed its lease for ${Math.round((w.owner_age_ms ?? 0) / 1000)} s`
  if (w.status === 'idle' && w.health === 'stopped')
    return w.overdue_since !== null
      ? `stopped: next run overdue since ${when(w.overdue_since)}`
      : `stopped: no worker owns it; last run ${w.last_outcome ?? 'none'}`
  return base
}

export async function teamStatus(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, { db: { type: 'string' }, json: { type: 'boolean', default: false }, ...TEAM_DB_FLAGS })
  const opts = teamDbOptions(required(values.db, '--db'), values)
  // A schema that cannot be read is shown as not set up, as one that is not there.
  const readVersion = (pool: pg.Pool, schema: string): Promise<number> => schemaVersion(pool, schema).catch(() => 0)
  return withTeamSchema(
    opts,
    async (pool, version) => {
      const workers = await readWorkerState(pool, opts.schema)
      const calls = Number((await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(opts.schema)}.calls`)).rows[0]?.n ?? 0)
      const seq = await lastChange(pool, opts.schema)
      // No scope reported yet: no worker has ever run.
      const health =
        workers.length === 0 ? 'stopped' : workers.reduce<WorkerHealth>((h, w) => (RANK[w.health] > RANK[h] ? w.health : h), 'healthy')
      const code = EXIT_OF[health]
      if (values.json) {
        io.out(
          `${jsonLine({ schema: opts.schema, schemaVersion: version, supported: PG_SCHEMA_VERSION, calls, lastChange: seq, health, exitCode: code, scopes: workers.map(scopeJson) })}\n`
        )
        return code
      }
      io.out(`Team cache "${opts.schema}" (schema version ${version}): ${calls} calls, last change number ${seq}. Health: ${health}.\n`)
      if (workers.length === 0) io.out('No worker has reported yet.\n')
      const when = (ms: number | null): string => iso(ms) ?? 'never'
      for (const w of workers) {
        // Names and messages come from the database: shown, never obeyed, by the terminal.
        const next = w.overdue_since !== null ? `overdue since ${when(w.overdue_since)}` : `next ${when(w.next_run_at)}`
        io.out(
          `- ${terminalLine(w.name)}: ${stateLine(w)}; last success ${when(w.last_success_at)}; ${next} (${terminalLine(w.owner ?? w.worker)})\n`
        )
        if (w.standby) io.out(`    standby: ${terminalLine(w.standby)} waits to take over\n`)
        if (w.health === 'failing') io.out(`    failing since ${when(w.failing_since ?? w.last_finished_at)}\n`)
        if (w.last_error_code) {
          io.out(`    last error ${terminalLine(w.last_error_code)}: ${terminalLine(w.last_error_message ?? '')}\n`)
          if (w.last_error_detail) io.out(`    detail: ${terminalLine(w.last_error_detail)}\n`)
        }
      }
      return code
    },
    readVersion
  )
}
