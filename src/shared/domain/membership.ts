/**
 * Membership passes: which calls of a synced range belong to each filter value, learnt by
 * asking the service for that value without analysis (500 calls a request instead of 100).
 * A call record carries no type, direction, result or new-request flag, so without them a
 * scope synced "all types, all results" answers none of those filters.
 */
import { z } from 'zod'
import { SyncProgress } from './sync'
import { EpochMs } from './time'

/** One direction value to learn, with the name the user gave it (the spec names none). */
export const DirectionSetting = z.object({
  value: z.number().int().min(-1_000_000).max(1_000_000),
  name: z.string().trim().max(100).default('')
})
export type DirectionSetting = z.infer<typeof DirectionSetting>

/** The spec shows only the sample value 1; 1 and 2 are the likely pair (in and out). */
export const DEFAULT_DIRECTIONS: readonly DirectionSetting[] = [
  { value: 1, name: '' },
  { value: 2, name: '' }
]

export const DirectionSettings = z
  .array(DirectionSetting)
  .max(20)
  .refine((l) => new Set(l.map((d) => d.value)).size === l.length, { message: 'Each direction value once' })

/** What one pass asks the service for. */
export const MembershipPass = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('type'), value: z.string().min(1).max(200) }),
  z.object({ kind: z.literal('answered') }),
  z.object({ kind: z.literal('newRequest') }),
  z.object({ kind: z.literal('direction'), value: z.number().int(), name: z.string().default('') })
])
export type MembershipPass = z.infer<typeof MembershipPass>

/** "About N requests, M minutes", from the cache's own counts, before anything runs. */
export const MembershipEstimate = z.object({
  from: EpochMs,
  to: EpochMs,
  passes: z.number().int().nonnegative(),
  /** Calls the passes would read, all passes together (an upper bound). */
  calls: z.number().int().nonnegative(),
  requests: z.number().int().nonnegative(),
  /** At the tenant's limit. */
  seconds: z.number().nonnegative(),
  /** Requests a full sync with analysis of the same range takes, for comparison. */
  fullSyncRequests: z.number().int().nonnegative()
})
export type MembershipEstimate = z.infer<typeof MembershipEstimate>

/** The progress of the whole set of passes: pass i of n, with the current pass's own progress. */
export const MembershipProgress = z.object({
  phase: z.enum(['running', 'done', 'cancelled', 'failed']),
  /** 1-based index of the current pass (the last one once ended). */
  pass: z.number().int().nonnegative(),
  passes: z.number().int().nonnegative(),
  current: MembershipPass.nullable(),
  /** Requests and records of every pass so far. */
  requests: z.number().int().nonnegative(),
  stored: z.number().int().nonnegative(),
  /** The current pass's ETA plus the estimate of the passes after it; null until known. */
  etaSeconds: z.number().nonnegative().nullable(),
  /** The current pass's progress as the engine reports it. */
  sync: SyncProgress.nullable()
})
export type MembershipProgress = z.infer<typeof MembershipProgress>

/** How a pass is named in the progress and logs: "call type Refund", "direction 2 (outgoing)". */
export function describePass(p: MembershipPass): string {
  switch (p.kind) {
    case 'type':
      return `call type ${p.value}`
    case 'answered':
      return 'answered only'
    case 'newRequest':
      return 'new requests'
    case 'direction':
      return p.name ? `direction ${p.value} (${p.name})` : `direction ${p.value}`
  }
}

/** "1=Incoming, 2=Outgoing" (names optional) to the list; null when it is not one. */
export function parseDirectionList(text: string): DirectionSetting[] | null {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  const list = items.map((item) => {
    const [value, ...name] = item.split('=')
    return { value: /^-?\d+$/.test(value!.trim()) ? Number(value) : NaN, name: name.join('=').trim() }
  })
  if (list.some((d) => !Number.isInteger(d.value))) return null
  const parsed = DirectionSettings.safeParse(list)
  return parsed.success ? parsed.data : null
}

/** The list as the Settings field shows it. */
export function formatDirectionList(list: readonly DirectionSetting[]): string {
  return list.map((d) => (d.name ? `${d.value}=${d.name}` : String(d.value))).join(', ')
}
