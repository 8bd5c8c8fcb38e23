import { z } from 'zod'

export const Intervals = z.array(z.tuple([z.number(), z.number()]))

/** Adds [from, to) to sorted, disjoint intervals, merging any that touch or overlap. */
export function mergeInterval(list: ReadonlyArray<[number, number]>, add: [number, number]): Array<[number, number]> {
  if (!(add[0] < add[1])) return list.map((i) => [i[0], i[1]])
  const all = [...list.map((i): [number, number] => [i[0], i[1]]), [add[0], add[1]] as [number, number]].sort((a, b) => a[0] - b[0])
  const out: Array<[number, number]> = []
  for (const cur of all) {
    const last = out[out.length - 1]
    if (last && cur[0] <= last[1]) last[1] = Math.max(last[1], cur[1])
    else out.push(cur)
  }
  return out
}

export type Interval = readonly [number, number]

/** The union of interval lists, merged and sorted. */
export function unionIntervals(lists: ReadonlyArray<ReadonlyArray<Interval>>): Array<[number, number]> {
  let out: Array<[number, number]> = []
  for (const list of lists) for (const i of list) out = mergeInterval(out, [i[0], i[1]])
  return out
}

/** The intersection of two sorted, disjoint lists. */
export function intersectIntervals(a: ReadonlyArray<Interval>, b: ReadonlyArray<Interval>): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (let i = 0, j = 0; i < a.length && j < b.length;) {
    const lo = Math.max(a[i]![0], b[j]![0])
    const hi = Math.min(a[i]![1], b[j]![1])
    if (lo < hi) out.push([lo, hi])
    if (a[i]![1] < b[j]![1]) i++
    else j++
  }
  return out
}

/** What of [from, to) a sorted, disjoint list leaves uncovered. */
export function uncovered(range: Interval, covered: ReadonlyArray<Interval>): Array<[number, number]> {
  const out: Array<[number, number]> = []
  let at = range[0]
  for (const [a, b] of covered) {
    if (b <= at) continue
    if (a >= range[1]) break
    if (a > at) out.push([at, Math.min(a, range[1])])
    at = Math.max(at, b)
    if (at >= range[1]) break
  }
  if (at < range[1]) out.push([at, range[1]])
  return out
}
