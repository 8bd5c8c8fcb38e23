/**
 * Faults on demand, decided per request from a seeded generator so a run is repeatable.
 * Order of checks: drop, error status, then (on a response that would succeed) malformed or
 * truncated JSON. Latency is added to every affected request first.
 */
import { z } from 'zod'
import { Rng, mix } from './rng'
import type { Faults } from './types'

const rate = z.number().min(0).max(1)
export const faultsSchema = z.object({
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  errorRate: rate.optional(),
  errorStatuses: z.array(z.number().int().min(400).max(599)).min(1).optional(),
  dropRate: rate.optional(),
  malformedRate: rate.optional(),
  truncateRate: rate.optional(),
  paths: z.array(z.string().startsWith('/')).optional()
})

export type FaultAction = { kind: 'none' } | { kind: 'drop' } | { kind: 'error'; status: number }
export type BodyFault = 'none' | 'malformed' | 'truncate'

export class FaultState {
  private faults: Faults = {}
  private readonly rng: Rng

  constructor(seed: number, initial?: Faults) {
    this.rng = new Rng(mix(seed, 0xfa17))
    if (initial) this.set(initial)
  }

  set(f: Faults): void {
    this.faults = faultsSchema.parse(f)
  }

  clear(): void {
    this.faults = {}
  }

  private applies(path: string): boolean {
    return !this.faults.paths || this.faults.paths.includes(path)
  }

  latency(path: string): number {
    return this.applies(path) ? (this.faults.latencyMs ?? 0) : 0
  }

  before(path: string): FaultAction {
    if (!this.applies(path)) return { kind: 'none' }
    const f = this.faults
    if (f.dropRate && this.rng.next() < f.dropRate) return { kind: 'drop' }
    if (f.errorRate && this.rng.next() < f.errorRate) {
      const statuses = f.errorStatuses ?? [500, 502, 503]
      return { kind: 'error', status: this.rng.pick(statuses) }
    }
    return { kind: 'none' }
  }

  body(path: string): BodyFault {
    if (!this.applies(path)) return 'none'
    const f = this.faults
    if (f.malformedRate && this.rng.next() < f.malformedRate) return 'malformed'
    if (f.truncateRate && this.rng.next() < f.truncateRate) return 'truncate'
    return 'none'
  }
}

export class Stats {
  requests = 0
  byStatus: Record<string, number> = {}
  byPath: Record<string, number> = {}

  record(path: string, status: number | 'dropped'): void {
    this.requests++
    this.byStatus[String(status)] = (this.byStatus[String(status)] ?? 0) + 1
    this.byPath[path] = (this.byPath[path] ?? 0) + 1
  }

  reset(): void {
    this.requests = 0
    this.byStatus = {}
    this.byPath = {}
  }
}
