import { DateTime } from 'luxon'
import { unionIntervals, type CallCache, type Interval } from '../core/cache'
import { holdsEveryCall } from '../core/sync'
import { DEFAULT_DIRECTIONS, type CoverageGap } from '../shared/domain'
import { shellWord } from './shell-quote'

/** What the cache says about a gap beyond the coverage itself: who fills it, and how. */
export interface CoverageContext {
  /** Where a sync of everything (all types, all results, no other filter) holds the calls. */
  everyCall: Interval[]
  /** The cache is pulled from a team cache: its worker syncs, not this computer. */
  team: boolean
}

export function coverageContext(cache: CallCache): CoverageContext {
  const everyCall = unionIntervals(
    cache
      .scopes()
      .filter((s) => holdsEveryCall(s.filters))
      .map((s) => s.coverage)
  )
  return { everyCall, team: cache.teamSource() !== null }
}

/**
 * Whether membership passes fill the gap: every filter of it is one the passes learn (a call
 * type, answered only, new requests, a direction) and no analysis is read, and a sync of
 * everything already holds its calls. Then the passes (no analysis, 500 calls a request)
 * fill it, not a full sync of the filter.
 */
export function passesFill(g: CoverageGap, everyCall: readonly Interval[]): boolean {
  if (g.analysis || g.from === null || g.to === null) return false
  if (Array.isArray(g.results) || g.hasNewRequest === false) return false
  const { from, to } = g
  return everyCall.some(([a, b]) => a <= from && to <= b)
}

/** The `--directions` a pass command needs so the gap's direction is among those learnt. */
export function directionsFor(g: CoverageGap): string | null {
  if (g.direction === null || DEFAULT_DIRECTIONS.some((d) => d.value === g.direction)) return null
  return [...DEFAULT_DIRECTIONS.map((d) => d.value), g.direction].join(',')
}

const iso = (ms: number, zone: string): string =>
  DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true }) ?? new Date(ms).toISOString()

/** The passes that fill a gap over cached calls; the server and user are the caller's. */
export function membershipCommandFor(g: CoverageGap, db: string, zone: string): string {
  const words = ['callsight sync --server URL --user NAME', `--db ${shellWord(db)}`]
  words.push(`--from ${shellWord(iso(g.from!, zone))} --to ${shellWord(iso(g.to!, zone))}`, '--results all --memberships-only')
  const dirs = directionsFor(g)
  if (dirs !== null) words.push(`--directions ${dirs}`)
  return words.join(' ')
}

/**
 * On a cache pulled from a team cache the worker syncs, not this computer: what it lacks,
 * and where that is set.
 */
export const TEAM_HINT =
  'the team worker does not sync this scope: add it to the "scopes" of the worker\'s config (callsight worker --config FILE; docs/team.md)'
