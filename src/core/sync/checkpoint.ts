import { z } from 'zod'

export const DenseFinding = z.object({
  /** The second (epoch ms) that holds more calls than one 10,000 window can reach. */
  at: z.number(),
  /** totalCount of the window query, when the envelope had one. */
  windowTotal: z.number().nullable()
})
export type DenseFinding = z.infer<typeof DenseFinding>

/**
 * Where a pass stands, stored with every page in the page's own transaction. Together with
 * the stored records it is enough to continue after a kill at any moment.
 */
export const PagerState = z.object({
  /**
   * Newest first: each window is read descending from `windowEnd`, which moves back. Absent
   * means oldest first (checkpoints stored before the option continue as they were).
   */
  order: z.enum(['newest', 'oldest']).optional(),
  /** The service query's start: a whole second, moved forward each time a window fills (oldest first; fixed newest first). */
  windowStart: z.number(),
  /** Newest first: the service query's end, a whole second (inclusive), moved back each time a window fills. */
  windowEnd: z.number().optional(),
  /** Position inside the current window. */
  skip: z.number().int().nonnegative(),
  /** The last second seen (the lowest, newest first), and every callId already stored from it. */
  boundaryAt: z.number().nullable(),
  boundaryIds: z.array(z.string()),
  /** The last of boundaryIds in the service's order (ties sort by callId). */
  boundaryLast: z.string().nullable(),
  /** After a window move, the record the first page must start with to prove the skip. */
  expectFirst: z.string().nullable(),
  windowsDone: z.number().int().nonnegative(),
  dense: z.array(DenseFinding),
  done: z.boolean()
})
export type PagerState = z.infer<typeof PagerState>

export const Checkpoint = z.object({
  v: z.literal(1),
  /** The range the run was asked for: a later run with the same range continues this one. */
  requestFrom: z.number(),
  requestTo: z.number(),
  /** The range this pass fetches (an incremental pass starts at the look-back). */
  rangeFrom: z.number(),
  rangeTo: z.number(),
  pager: PagerState
})
export type Checkpoint = z.infer<typeof Checkpoint>

/** A stored checkpoint, or null when there is none or it is from another version. */
export function readCheckpoint(raw: unknown): Checkpoint | null {
  const parsed = Checkpoint.safeParse(raw)
  return parsed.success ? parsed.data : null
}

/**
 * The part of a stopped pass's range whose calls are all stored, as the checkpoint knows it:
 * newest first from the lowest second seen up to the range's end, oldest first from the
 * range's start up to the last second seen. Null when the pass stored nothing yet. The sync
 * screen shows it for a scope whose first pass was stopped, which has no coverage yet.
 */
export function syncedSoFar(raw: unknown): { from: number; to: number } | null {
  const cp = readCheckpoint(raw)
  if (cp === null) return null
  const { pager } = cp
  if (pager.done) return { from: cp.rangeFrom, to: cp.rangeTo }
  if (pager.boundaryAt === null) return null
  return pager.order === 'newest' ? { from: pager.boundaryAt, to: cp.rangeTo } : { from: cp.rangeFrom, to: pager.boundaryAt }
}
