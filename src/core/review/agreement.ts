/**
 * Agreement between reviewers, pure: Krippendorff's alpha and percent agreement.
 *
 * Alpha is chance-corrected (1 = perfect agreement, 0 = what chance would give, below 0 =
 * systematic disagreement), takes any number of reviewers, and takes missing answers: a
 * unit (a call, for one criterion) counts with whatever answers it has, as long as it has
 * two. Percent agreement is shown beside it because it is what a reviewer reads at a glance,
 * but it is not corrected for chance: two reviewers answering "yes" to a criterion almost
 * every call always agree highly by it.
 *
 * Computed with the coincidence matrix of Krippendorff (2011, "Computing Krippendorff's
 * Alpha-Reliability"): o_ck = Σ_u (pairs c–k in unit u) / (m_u − 1), n_c = Σ_k o_ck,
 * D_o = Σ o_ck δ²(c,k) / n, D_e = Σ n_c n_k δ²(c,k) / (n (n − 1)), alpha = 1 − D_o / D_e.
 */

/** nominal: pass/fail criteria; ordinal: scales whose steps need not be equal; interval: equal steps. */
export type Metric = 'nominal' | 'ordinal' | 'interval'

/** One unit's answers (one per reviewer who answered; nulls are skipped). */
export type Unit = ReadonlyArray<number | null>

/** Alpha of the units; null when it is not defined (fewer than two pairable answers, or no variation at all). */
export function krippendorffAlpha(units: readonly Unit[], metric: Metric): number | null {
  const pairable = units.map((u) => u.filter((v): v is number => v !== null && Number.isFinite(v))).filter((u) => u.length >= 2)
  const values = [...new Set(pairable.flat())].sort((a, b) => a - b)
  if (values.length === 0) return null
  const index = new Map(values.map((v, i) => [v, i]))
  const k = values.length
  const o: number[][] = Array.from({ length: k }, () => new Array<number>(k).fill(0))
  for (const u of pairable) {
    const m = u.length
    for (let i = 0; i < m; i++)
      for (let j = 0; j < m; j++) {
        if (i === j) continue
        o[index.get(u[i]!)!]![index.get(u[j]!)!]! += 1 / (m - 1)
      }
  }
  const nc = o.map((row) => row.reduce((s, x) => s + x, 0))
  const n = nc.reduce((s, x) => s + x, 0)
  if (n < 2) return null
  const delta = distance(metric, values, nc)
  let observed = 0
  let expected = 0
  for (let c = 0; c < k; c++)
    for (let d = 0; d < k; d++) {
      const dd = delta(c, d)
      observed += o[c]![d]! * dd
      expected += nc[c]! * nc[d]! * dd
    }
  observed /= n
  expected /= n * (n - 1)
  if (expected === 0) return null
  return 1 - observed / expected
}

/** δ²(c, k) between the values at indexes c and k, for the metric. */
function distance(metric: Metric, values: readonly number[], nc: readonly number[]): (c: number, k: number) => number {
  if (metric === 'nominal') return (c, k) => (c === k ? 0 : 1)
  if (metric === 'interval') return (c, k) => (values[c]! - values[k]!) ** 2
  // Ordinal: the distance is how many answers lie between the two values (each end counting half).
  return (c, k) => {
    if (c === k) return 0
    const lo = Math.min(c, k)
    const hi = Math.max(c, k)
    let sum = 0
    for (let g = lo; g <= hi; g++) sum += nc[g]!
    return (sum - (nc[lo]! + nc[hi]!) / 2) ** 2
  }
}

/**
 * Percent agreement: over every pair of answers within a unit, the share that are equal
 * (0–1); null without a pair.
 */
export function percentAgreement(units: readonly Unit[]): number | null {
  let pairs = 0
  let equal = 0
  for (const raw of units) {
    const u = raw.filter((v): v is number => v !== null)
    for (let i = 0; i < u.length; i++)
      for (let j = i + 1; j < u.length; j++) {
        pairs++
        if (u[i] === u[j]) equal++
      }
  }
  return pairs === 0 ? null : equal / pairs
}

export interface Spread {
  min: number
  max: number
  /** Population standard deviation of the answers. */
  sd: number
  count: number
}

/** Min, max and standard deviation of the answers; null without any. */
export function spreadOf(values: ReadonlyArray<number | null>): Spread | null {
  const xs = values.filter((v): v is number => v !== null)
  if (xs.length === 0) return null
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length)
  return { min: Math.min(...xs), max: Math.max(...xs), sd, count: xs.length }
}
