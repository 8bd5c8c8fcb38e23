import { existsSync } from 'node:fs'
import { openCache } from '../../core/cache'
import { CallsightError, toErrorInfo } from '../../core/errors'
import { lastChange, redactUrl } from '../../core/team'
import { parseFlags, required } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'
import { openTeamPool, TEAM_DB_FLAGS, teamDbOptions } from '../team-db'

/**
 * A workstation's own freshness: its calls, when it last pulled and to which change, and how
 * far the team cache has moved on since (when it can be reached), as of now.
 */
export async function statusCommand(argv: string[], io: Io): Promise<number> {
  const { values } = parseFlags(argv, {
    db: { type: 'string' },
    from: { type: 'string' },
    json: { type: 'boolean', default: false },
    ...TEAM_DB_FLAGS
  })
  const file = required(values.db, '--db')
  if (!existsSync(file)) throw new CallsightError('InvalidInput', `--db: ${file} does not exist.`)
  const cache = openCache(file)
  let calls: number
  let source: { source: string; cursor: number; pulledAt: number } | null
  try {
    calls = cache.info().calls
    source = cache.teamSource()
  } finally {
    cache.close()
  }
  const asOf = Date.now()
  // The pulled file keeps its source without a password: PGPASSWORD or ~/.pgpass gives it.
  const url = values.from ?? (source ? withoutPassword(source.source) : undefined)
  let team: { reachable: boolean; lastChange: number | null; behind: number | null; error: string | null } | null = null
  if (url !== undefined) {
    const pool = openTeamPool(teamDbOptions(url, values), 1)
    try {
      const seq = await lastChange(pool, teamDbOptions(url, values).schema)
      team = { reachable: true, lastChange: seq, behind: source ? Math.max(0, seq - source.cursor) : null, error: null }
    } catch (e) {
      team = { reachable: false, lastChange: null, behind: null, error: toErrorInfo(e).message }
    } finally {
      await pool.end().catch(() => undefined)
    }
  }
  const iso = (ms: number | null | undefined): string | null => (ms === null || ms === undefined ? null : new Date(ms).toISOString())
  if (values.json) {
    io.out(
      `${jsonLine({
        file,
        asOf: iso(asOf),
        calls,
        source: source ? redactUrl(source.source) : null,
        lastPullAt: iso(source?.pulledAt),
        cursor: source?.cursor ?? null,
        teamCache: team
      })}\n`
    )
    return EXIT.ok
  }
  io.out(`${terminalLine(file)}: ${calls} calls, as of ${iso(asOf)}.\n`)
  if (!source) io.out('Never pulled from a team cache.\n')
  else io.out(`Last pull ${iso(source.pulledAt)} from ${terminalLine(redactUrl(source.source))}, at change ${source.cursor}.\n`)
  if (team?.reachable)
    io.out(`The team cache's newest change: ${team.lastChange}${team.behind !== null ? ` (${team.behind} behind)` : ''}.\n`)
  else if (team) io.out(`The team cache could not be read: ${terminalLine(team.error ?? '')}\n`)
  return EXIT.ok
}

/** The stored source shows its password masked (or not at all): the real one comes from PGPASSWORD or ~/.pgpass. */
function withoutPassword(url: string): string {
  try {
    const u = new URL(url)
    u.password = ''
    return u.toString()
  } catch {
    return url
  }
}
