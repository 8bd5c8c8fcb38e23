import { CallsightError } from '../../core/errors'
import { disableTeamSearch, enableTeamSearch, teamSearchState } from '../../core/team'
import { parseFlags, required } from '../args'
import { EXIT } from '../exit-codes'
import type { Io } from '../output'
import { TEAM_DB_FLAGS, teamDbOptions, withTeamSchema } from '../team-db'

/**
 * `callsight team search enable|disable|status --db URL`: the tenant's team cache search,
 * off unless its operator turns it on (docs/team.md, "Searching the team cache"). Enable and
 * disable change the schema: the database owner runs them, as `team init`.
 */
export async function teamSearchSwitch(argv: string[], io: Io): Promise<number> {
  const [action, ...rest] = argv
  if (action !== 'enable' && action !== 'disable' && action !== 'status')
    throw new CallsightError('InvalidInput', `callsight team search: say enable, disable or status${action ? ` (not "${action}")` : ''}.`)
  const { values } = parseFlags(rest, { db: { type: 'string' }, ...TEAM_DB_FLAGS })
  const opts = teamDbOptions(required(values.db, '--db'), values)
  return withTeamSchema(opts, async (pool) => {
    if (action === 'status') {
      io.out(`Team cache search in "${opts.schema}": ${await teamSearchState(pool, opts.schema)}.\n`)
      return EXIT.ok
    }
    if (action === 'disable') {
      await disableTeamSearch(pool, opts.schema)
      io.out(
        `Team cache search in "${opts.schema}" is off: its columns and indexes are dropped; workstations search only what they hold.\n` +
          'PostgreSQL reuses the space as calls are rewritten; VACUUM FULL of the calls table returns it at once.\n'
      )
      return EXIT.ok
    }
    const ac = new AbortController()
    const stop = (): void => ac.abort()
    process.once('SIGINT', stop)
    let shown = 0
    try {
      const filled = await enableTeamSearch(pool, opts.schema, {
        signal: ac.signal,
        onProgress: (p) => {
          if (p.filled - shown < 50_000) return
          shown = p.filled
          io.err(`  ${p.filled} calls indexed…\n`)
        }
      })
      if (ac.signal.aborted) {
        io.err(`Stopped after ${filled} calls: run the same command again to finish (searches do not find the rest until then).\n`)
        return EXIT.cancelled
      }
      io.out(`Team cache search in "${opts.schema}" is on (${filled} calls indexed by this run).\n`)
      return EXIT.ok
    } finally {
      process.off('SIGINT', stop)
    }
  })
}
