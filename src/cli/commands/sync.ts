import { openCache } from '../../core/cache'
import { CallsightError } from '../../core/errors'
import { systemClock } from '../../core/platform/node'
import { SyncEngine, type SyncStore } from '../../core/sync'
import { DEFAULT_RESULTS, type SyncProgress } from '../../shared/domain'
import { check, parseBoolFlag, parseFlags, parseIntFlag, parseList, parseRateLimit, parseResults, parseZone, required } from '../args'
import { connect } from '../connect'
import { parseIsoArg, systemZone } from '../dates'
import { exitCodeFor, EXIT } from '../exit-codes'
import { cliLogger, ProgressBar, THROTTLED_NOTE, type Io } from '../output'
import type { CliParts } from '../parts'
import { isPostgresUrl, openTeamStore, TEAM_DB_FLAGS, teamDbOptions } from '../team-db'
import { jsonLine, terminalLine } from '../terminal-text'
import { z } from 'zod'
import { migrationProgress } from '../migration-progress'
import { parseDirections, requireCachedRange, requireEveryCall, runMembershipsCli } from './memberships'

const Mode = z.enum(['full', 'incremental'])
const Order = z.enum(['newest', 'oldest'])

export async function syncCommand(argv: string[], io: Io, signal: AbortSignal, parts: CliParts = {}): Promise<number> {
  const { values } = parseFlags(argv, {
    server: { type: 'string' },
    user: { type: 'string' },
    db: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    analysis: { type: 'boolean', default: false },
    results: { type: 'string' },
    types: { type: 'string' },
    direction: { type: 'string' },
    'has-new-request': { type: 'string' },
    zone: { type: 'string' },
    mode: { type: 'string' },
    order: { type: 'string' },
    'lookback-hours': { type: 'string' },
    'rate-limit': { type: 'string' },
    json: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    memberships: { type: 'boolean', default: false },
    'memberships-only': { type: 'boolean', default: false },
    directions: { type: 'string' },
    ...TEAM_DB_FLAGS
  })
  const zone = parseZone(values.zone, systemZone())
  const server = required(values.server, '--server')
  const user = required(values.user, '--user')
  const db = required(values.db, '--db')
  const from = parseIsoArg(required(values.from, '--from'), zone, '--from')
  const to = parseIsoArg(required(values.to, '--to'), zone, '--to', true)
  if (!(from < to)) throw new CallsightError('InvalidInput', '--from must be before --to.')
  const mode = check(Mode, values.mode ?? 'incremental', '--mode')
  const order = check(Order, values.order ?? 'newest', '--order')
  const scope = {
    from,
    to,
    callTypes: parseList(values.types),
    direction: parseIntFlag(values.direction, '--direction', -1_000_000, 1_000_000) ?? null,
    results: parseResults(values.results, DEFAULT_RESULTS),
    hasNewRequest: parseBoolFlag(values['has-new-request'], '--has-new-request'),
    includeAnalysis: values.analysis
  }
  const lookbackHours = parseIntFlag(values['lookback-hours'], '--lookback-hours', 0, 24 * 366) ?? 48
  const rateLimit = parseRateLimit(values['rate-limit'])
  const logger = cliLogger(io, values.verbose)
  const memberships = values.memberships || values['memberships-only']
  const directions = parseDirections(values.directions)
  if (memberships) requireEveryCall(scope)

  if (memberships && isPostgresUrl(db)) {
    throw new CallsightError('InvalidInput', '--memberships runs on a cache file; the team cache learns them from its worker.')
  }
  const team = isPostgresUrl(db) ? await openTeamStore(teamDbOptions(db, values)) : null
  const local = team ? null : openCache(db, { onMigrationProgress: migrationProgress(io) })
  const cache: SyncStore = team ?? local!.sync
  try {
    // On the team cache, one process syncs a scope at a time (the worker may be running).
    if (team && !(await team.lockScope(SyncEngine.keyOf(scope), { renew: true }))) {
      throw new CallsightError('Storage', 'Another process (the worker?) is syncing this scope into the team cache right now.', {
        hint: 'Try again when it is done; callsight team status shows what the worker does.'
      })
    }
    // Passes alone run over a range a sync of everything already holds.
    if (values['memberships-only']) requireCachedRange(local!, from, to)
    const conn = await connect({ server, user, zone, rateLimit, logger, signal, newLimiter: parts.newLimiter })
    const runPasses = (): ReturnType<typeof runMembershipsCli> =>
      runMembershipsCli({
        cache: local!,
        conn,
        logger,
        range: { from, to },
        directions,
        mode,
        order,
        lookbackHours,
        json: values.json,
        io,
        signal
      })
    if (values['memberships-only']) {
      const result = await runPasses()
      return result.error ? exitCodeFor(result.error.code) : EXIT.ok
    }
    const engine = new SyncEngine({
      source: conn.session,
      cache,
      clock: systemClock,
      logger,
      rateLimit: conn.rateLimit,
      lookbackHours,
      waits: conn.waits,
      pace: () => conn.limiter.status
    })
    const bar = new ProgressBar(io)
    let lastLine = 0
    let throttled = false
    const onProgress = (p: SyncProgress): void => {
      throttled ||= p.pace?.throttled === true
      if (!values.json) return bar.update(p)
      const now = Date.now()
      if (p.phase !== 'fetching' && p.phase !== 'waiting') return
      if (now - lastLine < 100 && p.requests > 1) return
      lastLine = now
      io.out(`${jsonLine(p)}\n`)
    }
    const final = await engine.run(scope, { mode, order, signal, onProgress })
    bar.finish()
    if (throttled && !values.json) io.err(`note: ${THROTTLED_NOTE}.\n`)
    report(final, io, values.json)
    if (final.error && final.error.code !== 'DenseSecond') return exitCodeFor(final.error.code)
    if (memberships && final.phase === 'done') {
      const result = await runPasses()
      if (result.error && result.error.code !== 'DenseSecond') return exitCodeFor(result.error.code)
    }
    if (final.error) return exitCodeFor(final.error.code)
    return EXIT.ok
  } finally {
    local?.close()
    await team?.close()
  }
}

function report(p: SyncProgress, io: Io, json: boolean): void {
  if (json) {
    io.out(`${jsonLine(p)}\n`)
    return
  }
  for (const w of p.warnings) io.err(`warning: ${terminalLine(w)}\n`)
  const what = p.phase === 'done' ? 'Sync done' : p.phase === 'cancelled' ? 'Sync cancelled' : 'Sync failed'
  io.out(`${what}: ${p.stored} calls stored, ${p.requests} requests, ${p.windowsDone} window moves.\n`)
  if (p.error && p.error.code !== 'DenseSecond') {
    io.err(`${terminalLine(p.error.message)}${p.error.hint ? `\n${terminalLine(p.error.hint)}` : ''}\n`)
  }
}
