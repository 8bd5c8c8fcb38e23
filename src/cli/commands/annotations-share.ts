import { openCache } from '../../core/cache'
import { pullReview, pushReview } from '../../core/team'
import { parseFlags, required } from '../args'
import { EXIT } from '../exit-codes'
import { migrationProgress } from '../migration-progress'
import type { Io } from '../output'
import { openTeamPool, TEAM_DB_FLAGS, teamDbOptions } from '../team-db'
import { jsonLine, terminalLine } from '../terminal-text'

/**
 * `annotations push`: sends this cache's queued review changes to the team cache.
 * `annotations pull`: pushes first, then brings the team's changes since the last pull (so
 * one command leaves both sides even). Both log in as the analyst's own role (the user of
 * the connection string; its password in PGPASSWORD or ~/.pgpass, never on the line).
 */
export async function shareCommand(action: 'push' | 'pull', argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, {
    db: { type: 'string' },
    team: { type: 'string' },
    'retry-refused': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    ...TEAM_DB_FLAGS
  })
  const opts = teamDbOptions(required(values.team, '--team'), values)
  const cache = openCache(required(values.db, '--db'), { onMigrationProgress: migrationProgress(io) })
  const pool = openTeamPool(opts, 1)
  try {
    if (values['retry-refused']) {
      const n = cache.review.share.retryRefused()
      if (n > 0 && !values.json) io.out(`${n} refused change(s) queued again.\n`)
    }
    const pushed = await pushReview({ pool, schema: opts.schema, cache })
    const pulled = action === 'pull' ? await pullReview({ pool, schema: opts.schema, cache }) : null
    if (values.json) io.out(`${jsonLine({ pushed, pulled })}\n`)
    else {
      io.out(
        `Pushed as ${terminalLine(pushed.role)}: ${pushed.pushed} change(s), ${pushed.conflicts} conflict(s) kept, ${pushed.duplicates} already there; ${pushed.waiting} waiting.\n`
      )
      if (pulled) io.out(`Pulled ${pulled.applied} review change(s); ${pulled.refused} refused; at review change ${pulled.cursor}.\n`)
    }
    for (const r of pulled?.refusals ?? []) io.err(`callsight annotations: ${terminalLine(r.message)}\n`)
    return pulled && pulled.refused > 0 ? EXIT.validation : EXIT.ok
  } finally {
    await pool.end()
    cache.close()
  }
}
