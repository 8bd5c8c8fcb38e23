import { z } from 'zod'

/**
 * A team cache count in two steps: an estimate from a sample first, the exact number after.
 * The two kinds carry their number under different names, so an estimate cannot be read or
 * shown as an exact count by mistake; a count whose exact step ran out of its time stays an
 * estimate and says why.
 */
export const TeamCountMode = z.enum(['estimate', 'exact'])
export type TeamCountMode = z.infer<typeof TeamCountMode>

export const TeamCount = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('estimate'),
      /** Rounded to three significant digits: the sample says no more than that. */
      about: z.number().int().nonnegative(),
      /** The exact count was asked for and took longer than its budget. */
      exactTimedOut: z.boolean()
    })
    .strict(),
  z.object({ kind: z.literal('exact'), n: z.number().int().nonnegative() }).strict()
])
export type TeamCount = z.infer<typeof TeamCount>

/** What a list may number its rows against: only an exact count bounds it. */
export function exactOf(c: TeamCount | null): number | null {
  return c?.kind === 'exact' ? c.n : null
}

/** Three significant digits: 317,482 → 317,000; 71 → 71. */
export function roughly(n: number): number {
  if (n < 1000) return Math.round(n)
  const scale = 10 ** (Math.floor(Math.log10(n)) - 2)
  return Math.round(n / scale) * scale
}
