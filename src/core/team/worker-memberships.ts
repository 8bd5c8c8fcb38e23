import { z } from 'zod'
import { CallType, describePass, DirectionSetting, type MembershipPass } from '../../shared/domain'
import { holdsEveryCall, membershipPasses } from '../sync/membership-scopes'
import type { WorkerScopeConfig } from './worker-config'

/**
 * The worker config's `memberships`: `true` (the default) learns every call type of the team
 * cache's catalog, answered only, new requests and directions 1 and 2 for each scope that
 * holds every call; `false` learns nothing; an object names the call types to add to the
 * catalog (a Value, or Value and Description so workstations match either), the directions
 * and the names a direction is shown by.
 */
export const MembershipsConfig = z
  .union([
    z.boolean(),
    z
      .object({
        types: z
          .array(z.union([z.string().trim().min(1).max(200), CallType]))
          .max(500)
          .default([]),
        directions: z.array(z.number().int().min(-1_000_000).max(1_000_000)).max(20).default([1, 2]),
        names: z.record(z.string(), z.string().trim().max(100)).default({})
      })
      .strict()
  ])
  .default(true)
export type MembershipsConfig = z.infer<typeof MembershipsConfig>

/** What the worker learns for a scope that holds every call; null when it learns nothing. */
export interface MembershipPlan {
  /** Put into the team cache's catalog before the passes (never overwriting a description with ''). */
  types: CallType[]
  directions: DirectionSetting[]
}

export function membershipPlan(cfg: MembershipsConfig): MembershipPlan | null {
  if (cfg === false) return null
  if (cfg === true) return { types: [], directions: [DirectionSetting.parse({ value: 1 }), DirectionSetting.parse({ value: 2 })] }
  const directions = [...new Set(cfg.directions)].map((value) => DirectionSetting.parse({ value, name: cfg.names[String(value)] ?? '' }))
  const types = cfg.types.map((t) => (typeof t === 'string' ? { value: t, description: '' } : t))
  return { types, directions }
}

/** Whether the worker runs membership passes after the scope: it holds every call. */
export function learnsMemberships(cfg: WorkerScopeConfig): boolean {
  return holdsEveryCall({ callTypes: cfg.types, direction: cfg.direction, results: cfg.results, hasNewRequest: cfg.hasNewRequest })
}

/** The passes for the catalog as it is now, in the order they run. */
export function workerPasses(catalog: readonly CallType[], plan: MembershipPlan): MembershipPass[] {
  return membershipPasses(catalog, plan.directions)
}

/**
 * A pass as a scope of its own, over the scope's rolling or fixed range: one filter value,
 * every other filter open, without analysis (the same filters as `passScope`, so the same
 * scope key the app and the CLI use). Its row in `worker_scopes` is named after the scope
 * and the pass, so `team status` shows each pass's state and last success.
 */
export function passConfig(parent: WorkerScopeConfig, pass: MembershipPass): WorkerScopeConfig {
  const base: WorkerScopeConfig = {
    name: `${parent.name} · ${describePass(pass)}`,
    ...(parent.days !== undefined ? { days: parent.days } : {}),
    ...(parent.from !== undefined ? { from: parent.from } : {}),
    analysis: false,
    results: 'all',
    types: [],
    direction: null,
    hasNewRequest: null
  }
  switch (pass.kind) {
    case 'type':
      return { ...base, types: [pass.value] }
    case 'answered':
      return { ...base, results: 'answered' }
    case 'newRequest':
      return { ...base, hasNewRequest: true }
    case 'direction':
      return { ...base, direction: pass.value }
  }
}
