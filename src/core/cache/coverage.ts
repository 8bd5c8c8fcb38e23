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
