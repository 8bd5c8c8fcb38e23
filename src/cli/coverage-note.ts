import { DateTime } from 'luxon'
import type { CoverageGap, CoverageNotice, QueryCoverage } from '../shared/domain'
import { membershipCommandFor, passesFill, TEAM_HINT, type CoverageContext } from './coverage-context'
import { shellWord } from './shell-quote'
import { terminalLine } from './terminal-text'

const iso = (ms: number, zone: string): string =>
  DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) ?? new Date(ms).toISOString()

/** "call type Refund, direction 1, answered only" — what a gap's sync would fetch. */
export function describeGap(g: CoverageGap, describeType: (value: string) => string = (v) => v): string {
  const parts: string[] = []
  if (g.callTypes.length > 0) parts.push(`call type ${g.callTypes.map(describeType).join(', ')}`)
  if (g.direction !== null) parts.push(`direction ${g.direction}`)
  parts.push(g.results === 'answered' ? 'answered only' : g.results === 'all' ? 'all results' : `results ${g.results.join(',')}`)
  if (g.hasNewRequest !== null) parts.push(g.hasNewRequest ? 'new requests' : 'no new requests')
  if (g.analysis) parts.push('with analysis')
  return parts.join(', ')
}

/**
 * The sync that fills a gap; the server and user are the caller's. Every value is one
 * shell word (shellWord): a call type's name or the cache's path is data, never syntax.
 */
export function syncCommandFor(g: CoverageGap, db: string, zone: string): string {
  const words = ['callsight sync --server URL --user NAME', `--db ${shellWord(db)}`]
  if (g.from !== null && g.to !== null) words.push(`--from ${shellWord(iso(g.from, zone))} --to ${shellWord(iso(g.to, zone))}`)
  else words.push('--from ISO --to ISO')
  if (g.callTypes.length > 0) words.push(`--types ${shellWord(g.callTypes.join(','))}`)
  if (g.direction !== null) words.push(`--direction ${g.direction}`)
  if (g.results !== 'answered') words.push(`--results ${shellWord(g.results === 'all' ? 'all' : g.results.join(','))}`)
  if (g.hasNewRequest !== null) words.push(`--has-new-request ${g.hasNewRequest}`)
  if (g.analysis) words.push('--analysis')
  return words.join(' ')
}

/**
 * One line for stderr when a local answer is not the whole answer: what is not synced, over
 * which range, and what fills it (the first gap; the count of the others): the membership
 * passes when a sync of everything holds its calls, else the sync of the gap — or, on a
 * cache pulled from a team cache, which the worker must sync (this computer syncs nothing).
 */
export function coverageWarning(
  command: string,
  c: QueryCoverage,
  db: string,
  zone: string,
  describeType?: (value: string) => string,
  context?: CoverageContext
): string | null {
  const notice = c.notices?.find((n) => n.kind === 'outside-window')
  // Gaps before the window's start are the window's, said by its notice; in a window of
  // chosen scopes, every gap is (the scopes not chosen are not on this computer).
  const missing = !notice
    ? c.missing
    : notice.scopes !== undefined
      ? []
      : c.missing.filter((g) => g.to === null || notice.windowStart === null || g.to > notice.windowStart)
  const gap = gapWarning(command, { ...c, missing, complete: c.complete || missing.length === 0 }, db, zone, describeType, context)
  if (!notice) return gap
  const line = terminalLine(`callsight ${command}: ${outsideWindowText(notice, db, zone)}`)
  return gap === null ? line : `${line}\n${gap}`
}

/** "Outside this workstation's window: last 90 days (calls dated from …). Widen it: …" */
export function outsideWindowText(n: CoverageNotice, db: string, zone: string): string {
  const held: string[] = []
  if (n.windowStart !== null) {
    const span = n.days === null ? 'being widened to everything' : `last ${n.days} day${n.days === 1 ? '' : 's'}`
    held.push(`${span} (it holds the calls dated from ${iso(n.windowStart, zone)} on)`)
  }
  if (n.scopes !== undefined) held.push(`the scopes ${n.scopes.map((s) => `"${s}"`).join(', ')} only`)
  const widen = [
    ...(n.windowStart !== null ? ['--days N (or --all for every date)'] : []),
    ...(n.scopes !== undefined ? ['--scope NAME for each scope (or --all-scopes)'] : [])
  ]
  return `Outside this workstation's window: ${held.join('; ')}. Widen it: callsight pull --from URL --db ${shellWord(db)} ${widen.join(', ')}.`
}

function gapWarning(
  command: string,
  c: QueryCoverage,
  db: string,
  zone: string,
  describeType?: (value: string) => string,
  context?: CoverageContext
): string | null {
  const first = c.missing[0]
  if (c.complete || first === undefined) return null
  const range = first.from !== null && first.to !== null ? `${iso(first.from, zone)} – ${iso(first.to, zone)}` : 'nothing synced yet'
  const more = c.missing.length > 1 ? ` (and ${c.missing.length - 1} more gap(s): --json lists them)` : ''
  const fill = context?.team
    ? TEAM_HINT
    : context && passesFill(first, context.everyCall)
      ? `the calls are cached; learn the filter (no analysis, 500 calls a request): ${membershipCommandFor(first, db, zone)}`
      : `Sync it: ${syncCommandFor(first, db, zone)}`
  return terminalLine(
    `callsight ${command}: warning: not synced: ${describeGap(first, describeType)}, ${range}${more}. Results may be incomplete. ${fill}`
  )
}
