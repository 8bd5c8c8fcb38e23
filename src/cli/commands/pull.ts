import { CallsightError } from '../../core/errors'
import { openCache } from '../../core/cache'
import { OPTIMIZE_AFTER, pullTeamCache, redactUrl, type PullProgress } from '../../core/team'
import { parseFlags, parseIntFlag, required } from '../args'
import { EXIT, exitCodeFor } from '../exit-codes'
import type { Io } from '../output'
import { jsonLine, terminalLine } from '../terminal-text'
import { openTeamPool, TEAM_DB_FLAGS, teamDbOptions } from '../team-db'
import { migrationProgress } from '../migration-progress'

export async function pullCommand(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values } = parseFlags(argv, {
    from: { type: 'string' },
    db: { type: 'string' },
    batch: { type: 'string' },
    'start-over': { type: 'boolean', default: false },
    'index-each-batch': { type: 'boolean', default: false },
    days: { type: 'string' },
    all: { type: 'boolean', default: false },
    scope: { type: 'string', multiple: true },
    'all-scopes': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    ...TEAM_DB_FLAGS
  })
  const days = parseIntFlag(values.days, '--days', 1, 36_500)
  if (days !== undefined && values.all) throw new CallsightError('InvalidInput', '--days and --all ask for different windows: give one.')
  const named = values.scope ?? []
  if (named.length > 0 && values['all-scopes'])
    throw new CallsightError('InvalidInput', '--scope and --all-scopes ask for different windows: give one.')
  if (named.some((n) => n.trim() === '')) throw new CallsightError('InvalidInput', '--scope takes a scope name.')
  // Unset: the scopes the file holds already; null: every scope.
  const scopes = values['all-scopes'] ? null : named.length > 0 ? named.map((n) => n.trim()) : undefined
  const url = required(values.from, '--from')
  const opts = teamDbOptions(url, values)
  const file = required(values.db, '--db')
  const batchSize = parseIntFlag(values.batch, '--batch', 100, 100_000) ?? 2000
  const pool = openTeamPool(opts, 1)
  const cache = openCache(file, { onMigrationProgress: migrationProgress(io) })
  cache.bulk.readsForBulkPull()
  // Unset: the window the file holds already (the cutoff still moves with the date).
  const asked = values.all ? null : days
  const window =
    asked === undefined && scopes === undefined
      ? undefined
      : { days: asked === undefined ? cache.teamWindow().days : asked, ...(scopes === undefined ? {} : { scopes }) }
  let lastDraw = 0
  const onProgress = (p: PullProgress): void => {
    const now = Date.now()
    if (now - lastDraw < 100 && p.phase === 'pulling') return
    lastDraw = now
    if (values.json) io.out(`${jsonLine(p)}\n`)
    else if (io.tty)
      io.err(
        `\r\x1b[2K${p.calls} of ${p.totalCalls} calls, ${p.members} memberships, ${p.batches} batches, ${p.callsPerSecond.toFixed(0)} calls/s`
      )
  }
  try {
    const final = await pullTeamCache({
      pool,
      schema: opts.schema,
      sourceLabel: redactUrl(url),
      cache,
      batchSize,
      signal,
      startOver: values['start-over'],
      ...(window ? { window } : {}),
      // Unless asked, nothing searches this file while the CLI pulls it: a first pull builds
      // the index beside it (src/core/cache/ingest/deferred-index.ts).
      ...(values['index-each-batch'] ? {} : { deferIndexFrom: OPTIMIZE_AFTER }),
      onProgress
    })
    if (values.json) io.out(`${jsonLine(final)}\n`)
    else {
      if (io.tty) io.err('\n')
      if (final.notice) io.out(`${final.notice}\n`)
      if (final.rescoped) io.out('The chosen scopes changed: what was pulled was emptied (annotations stay) and pulled anew.\n')
      const what = final.phase === 'done' ? 'Pull done' : final.phase === 'cancelled' ? 'Pull cancelled' : 'Pull failed'
      // Where the cache stands is read back from it: a pull that failed before its first
      // batch has no cursor of its own to tell.
      const at = cache.teamSource()
      const where = at ? `; ${final.phase === 'done' ? 'at' : 'this cache stays at'} change ${at.cursor}` : ''
      io.out(`${what}: ${final.calls} calls new or changed and ${final.members} memberships in ${final.batches} batches${where}.\n`)
      const held = cache.teamWindow()
      const heldScopes = cache.teamScopes()
      if (final.dropped > 0 || final.backfilled > 0 || held.days !== null || heldScopes !== null) {
        const span = held.days === null ? 'every date' : `the last ${held.days} day(s)`
        const of = heldScopes === null ? '' : ` of the scopes ${[...new Set(heldScopes.map((s) => `"${s.name}"`))].join(', ')}`
        io.out(`Window: ${span}${of}; ${final.dropped} call(s) dropped for leaving it, ${final.backfilled} brought in by widening it.\n`)
      }
      for (const r of final.refusals) io.err(`${terminalLine(r.message)}\n`)
      if (final.refused > 0) io.err(`${final.refused} row(s) refused for values larger than a pull takes; the rest was pulled.\n`)
      if (final.error && final.phase !== 'cancelled')
        io.err(`${terminalLine(final.error.message)}${final.error.hint ? `\n${terminalLine(final.error.hint)}` : ''}\n`)
    }
    return final.error ? exitCodeFor(final.error.code) : EXIT.ok
  } finally {
    cache.close()
    await pool.end()
  }
}
