import { DateTime } from 'luxon'
import type { Sampling } from '../../shared/review'

/** mulberry32: small and seeded, so the same list is drawn again from the same seed. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** `k` distinct indexes of `0..n-1`, drawn with `rand` (a partial Fisher–Yates shuffle). */
function draw(n: number, k: number, rand: () => number): number[] {
  const idx = Array.from({ length: n }, (_, i) => i)
  const take = Math.min(k, n)
  for (let i = 0; i < take; i++) {
    const j = i + Math.floor(rand() * (n - i))
    ;[idx[i], idx[j]] = [idx[j]!, idx[i]!]
  }
  return idx.slice(0, take)
}

export interface Candidate {
  callId: string
  callAt: number
}

/**
 * QA sampling of a search's matches, pure and repeatable: a percentage of them (rounded,
 * at least one when any match), or N per day in the zone. The sample keeps the search's
 * order.
 */
export function sample(candidates: readonly Candidate[], spec: Sampling, defaultZone: string): string[] {
  const rand = seeded(spec.seed)
  const chosen = new Set<number>()
  if (spec.kind === 'percent') {
    const n = candidates.length
    const k = n === 0 ? 0 : Math.max(1, Math.round((n * spec.percent) / 100))
    for (const i of draw(n, k, rand)) chosen.add(i)
  } else {
    const zone = spec.zone ?? defaultZone
    const byDay = new Map<string, number[]>()
    candidates.forEach((c, i) => {
      const day = DateTime.fromMillis(c.callAt, { zone }).toISODate() ?? ''
      const list = byDay.get(day)
      if (list) list.push(i)
      else byDay.set(day, [i])
    })
    // Days in order, so the same seed draws the same calls whatever order the search had.
    for (const day of [...byDay.keys()].sort()) {
      const list = byDay.get(day)!
      for (const j of draw(list.length, spec.perDay, rand)) chosen.add(list[j]!)
    }
  }
  return candidates.filter((_, i) => chosen.has(i)).map((c) => c.callId)
}
