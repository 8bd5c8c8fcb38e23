import { remoteSearch } from '../../core/client/remote-search'
import { RateWaitGuard } from '../../core/client/rate-wait-guard'
import { maxTake } from '../../shared/service-limits'
import { CallsightError } from '../../core/errors'
import { DEFAULT_RESULTS, SearchQuery, type CallRecord } from '../../shared/domain'
import { check, parseBoolFlag, parseFlags, parseIntFlag, parseList, parseRateLimit, parseResults, parseZone, required } from '../args'
import { connect } from '../connect'
import { parseIsoArg, systemZone } from '../dates'
import { EXIT } from '../exit-codes'
import { cliLogger, type Io } from '../output'
import type { CliParts } from '../parts'
import { jsonLine, terminalLine } from '../terminal-text'

export async function remoteSearchCommand(argv: string[], io: Io, signal: AbortSignal, parts: CliParts = {}): Promise<number> {
  const { values } = parseFlags(argv, {
    server: { type: 'string' },
    user: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
    types: { type: 'string' },
    direction: { type: 'string' },
    results: { type: 'string' },
    'has-new-request': { type: 'string' },
    analysis: { type: 'boolean', default: false },
    skip: { type: 'string' },
    take: { type: 'string' },
    sort: { type: 'string' },
    zone: { type: 'string' },
    'rate-limit': { type: 'string' },
    json: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false }
  })
  const zone = parseZone(values.zone, systemZone())
  const sort = values.sort ?? '-date'
  if (sort !== 'date' && sort !== '-date') throw new CallsightError('InvalidInput', '--sort: expected date or -date.')
  const query = check(
    SearchQuery,
    {
      from: parseIsoArg(required(values.from, '--from'), zone, '--from'),
      to: parseIsoArg(required(values.to, '--to'), zone, '--to', true),
      callTypes: parseList(values.types),
      direction: parseIntFlag(values.direction, '--direction', -1_000_000, 1_000_000) ?? null,
      results: parseResults(values.results, DEFAULT_RESULTS),
      hasNewRequest: parseBoolFlag(values['has-new-request'], '--has-new-request'),
      sort: sort === 'date' ? 'date_asc' : 'date_desc'
    },
    '--from/--to'
  )
  const skip = parseIntFlag(values.skip, '--skip', 0, 1_000_000) ?? 0
  const take = parseIntFlag(values.take, '--take', 1, 1_000_000) ?? Math.min(20, maxTake(values.analysis))
  const logger = cliLogger(io, values.verbose)
  // Others may be spending the tenant's limit (the team worker): a 429 is waited out, visibly,
  // a bounded number of times, instead of failing the search.
  const guard = new RateWaitGuard(countdown(io), undefined, signal)
  const conn = await connect({
    server: required(values.server, '--server'),
    user: required(values.user, '--user'),
    zone,
    rateLimit: parseRateLimit(values['rate-limit']),
    logger,
    signal,
    newLimiter: parts.newLimiter,
    onRateLimited: (ms) => guard.rateLimited(ms)
  })
  const unsubscribe = conn.waits.subscribe((ms) => guard.waiting(ms))
  let page
  try {
    page = await remoteSearch(conn.session, query, skip, take, values.analysis, guard.signal)
  } catch (e) {
    throw guard.failure(e)
  } finally {
    unsubscribe()
    guard.dispose()
  }
  if (values.json) {
    io.out(
      `${jsonLine({ total: page.totalCount, skip: page.skip, take: page.take, exhausted: page.exhausted, loweredByCap: page.loweredByCap, malformed: page.malformed, items: page.records.map(item) })}\n`
    )
    return EXIT.ok
  }
  for (const r of page.records) io.out(`${terminalLine(r.callDate)}  ${terminalLine(r.callId)}  ${terminalLine(r.title)}\n`)
  const total = page.totalCount === null ? '' : ` of ${page.totalCount}`
  io.out(
    `${page.records.length} call(s)${total} from position ${page.skip}${page.loweredByCap ? '; the service stops at 10,000 — narrow the range to see more' : ''}.\n`
  )
  return EXIT.ok
}

/**
 * "waiting 12 s for the service's limit" on stderr: on a terminal one line redrawn each
 * second and cleared when the wait ends; otherwise one line per wait.
 */
function countdown(io: Io): (secondsLeft: number | null) => void {
  let shown = false
  return (left) => {
    if (left === null) {
      if (shown && io.tty) io.err('\r\x1b[2K')
      shown = false
      return
    }
    const line = `waiting ${left} s for the service's limit`
    if (io.tty) io.err(`\r\x1b[2K${line}`)
    else if (!shown) io.err(`${line}\n`)
    shown = true
  }
}

const item = (r: CallRecord) => ({ callId: r.callId, callDate: r.callDate, title: r.title, summary: r.summary, analysis: r.analysis })
