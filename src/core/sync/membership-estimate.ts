import type { MembershipEstimate, MembershipPass, RateLimit } from '../../shared/domain'
import { MAX_TAKE, MAX_TAKE_WITH_ANALYSIS, SERVICE_WINDOW as MAX_WINDOW } from '../../shared/service-limits'
import { parseScope, passStart } from './plan-window'
import { scopeFilters, scopeKey } from './scope-key'
import { passScope, type MembershipRange } from './membership-scopes'

type Awaitable<T> = T | Promise<T>

/** What the estimate reads from a cache: counts of calls it holds, and what scopes cover. */
export interface MembershipCountSource {
  /** Calls stored with `from <= callAt < to`. */
  countCalls(from: number, to: number): Awaitable<number>
  /** Members of the scope with `from <= callAt < to`; 0 for a scope the cache does not know. */
  countMembers(scopeKey: string, from: number, to: number): Awaitable<number>
  coverage(scopeKey: string): Awaitable<Array<[number, number]>>
}

/** The calls one group of passes reads, and how many passes it has. */
export interface GroupLoad {
  passes: number
  calls: number
}

/**
 * Requests of a group of passes that together read `calls` calls: the pages (500 each), a
 * last short page per pass, and one more per window move (each window of 10,000 re-reads
 * the boundary record). Pure.
 */
export function groupRequests(g: GroupLoad): number {
  if (g.passes === 0) return 0
  return Math.ceil(g.calls / MAX_TAKE) + g.passes + Math.floor(g.calls / MAX_WINDOW)
}

/** Seconds the tenant's limit takes for `requests`. */
export function secondsFor(requests: number, limit: RateLimit): number {
  return (requests * limit.perSeconds) / limit.requests
}

/**
 * The estimate from each group's load. Types partition the calls, and so do directions: each
 * group reads the range about once. Answered only and new requests read at most the calls.
 */
export function estimateFrom(range: MembershipRange, groups: readonly GroupLoad[], allCalls: number, limit: RateLimit): MembershipEstimate {
  const requests = groups.reduce((n, g) => n + groupRequests(g), 0)
  return {
    from: range.from,
    to: range.to,
    passes: groups.reduce((n, g) => n + g.passes, 0),
    calls: groups.reduce((n, g) => n + g.calls, 0),
    requests,
    seconds: secondsFor(requests, limit),
    fullSyncRequests: allCalls === 0 ? 1 : Math.ceil(allCalls / MAX_TAKE_WITH_ANALYSIS) + Math.floor(allCalls / MAX_WINDOW)
  }
}

const group = (p: MembershipPass): string => (p.kind === 'type' || p.kind === 'direction' ? p.kind : `${p.kind}`)

/**
 * The estimate of the passes over a range from the cache's own counts, before anything
 * runs. Each pass fetches from where an incremental run would start (the look-back before
 * its covered end, or `from`). A partition group (types, directions) reads the calls from
 * its earliest start once; answered only and new requests read, over the part their scope
 * already covers, the members they had there, and the calls elsewhere.
 */
export async function estimateMemberships(
  source: MembershipCountSource,
  range: MembershipRange,
  passes: readonly MembershipPass[],
  limit: RateLimit,
  opts: { lookbackMs: number; mode?: 'incremental' | 'full' }
): Promise<MembershipEstimate> {
  const groups = new Map<string, { passes: number; start: number; known: number | null }>()
  for (const p of passes) {
    const key = scopeKey(scopeFilters(parseScope(passScope(p, range))))
    const coverage = await source.coverage(key)
    const start = opts.mode === 'full' ? range.from : passStart(coverage, range, opts.lookbackMs)
    const g = groups.get(group(p)) ?? { passes: 0, start: range.to, known: null }
    g.passes++
    g.start = Math.min(g.start, start)
    if (p.kind === 'answered' || p.kind === 'newRequest') g.known = await refined(source, key, coverage, start, range.to)
    groups.set(group(p), g)
  }
  const loads: GroupLoad[] = []
  for (const g of groups.values()) loads.push({ passes: g.passes, calls: g.known ?? (await source.countCalls(g.start, range.to)) })
  return estimateFrom(range, loads, await source.countCalls(range.from, range.to), limit)
}

/** Members where the scope covered [start, to), calls where it did not. */
async function refined(
  source: MembershipCountSource,
  key: string,
  coverage: ReadonlyArray<readonly [number, number]>,
  start: number,
  to: number
): Promise<number> {
  let n = 0
  let at = start
  for (const [a, b] of [...coverage].sort((x, y) => x[0] - y[0])) {
    const lo = Math.max(a, start)
    const hi = Math.min(b, to)
    if (hi <= lo) continue
    if (lo > at) n += await source.countCalls(at, lo)
    n += await source.countMembers(key, lo, hi)
    at = Math.max(at, hi)
  }
  if (at < to) n += await source.countCalls(at, to)
  return n
}
