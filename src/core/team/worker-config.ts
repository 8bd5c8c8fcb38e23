import { z } from 'zod'
import { BaseUrl, IanaZone, RateLimit, ResultsFilter, type SyncScopeInput } from '../../shared/domain'
import { PASS_CONCURRENCY } from '../sync/membership-pass'
import { passwordInUrl, SchemaName, SslMode } from './connection'
import { MembershipsConfig } from './worker-memberships'

const DAY = 86_400_000

/** More passes at once than this only queue on the tenant's limiter and hold team cache connections. */
export const MAX_PASS_CONCURRENCY = 8

const DURATION_UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: DAY }

/** "7d", "12h", "90m" in milliseconds; at least a minute. */
export const Duration = z
  .string()
  .trim()
  .regex(/^\d+(\.\d+)?[mhd]$/, 'a duration like "7d", "12h" or "90m"')
  .transform((s) => Math.round(Number(s.slice(0, -1)) * DURATION_UNITS[s.slice(-1)]!))
  .refine((ms) => ms >= 60_000 && ms <= 3660 * DAY, { message: 'between a minute and ten years' })

/** One scope the worker keeps fresh: a rolling range of `days` up to now, or from a fixed instant. */
export const WorkerScopeConfig = z
  .object({
    name: z.string().trim().min(1).max(80),
    days: z.number().int().min(1).max(3660).optional(),
    /** An ISO instant with offset (e.g. 2026-01-01T00:00:00+03:00): the range starts there. */
    from: z.iso.datetime({ offset: true }).optional(),
    analysis: z.boolean().default(false),
    results: ResultsFilter.default('answered'),
    types: z.array(z.string().min(1).max(200)).max(200).default([]),
    direction: z.number().int().nullable().default(null),
    hasNewRequest: z.boolean().nullable().default(null)
  })
  .strict()
  .refine((s) => (s.days === undefined) !== (s.from === undefined), { message: 'give a scope either days or from' })
export type WorkerScopeConfig = z.infer<typeof WorkerScopeConfig>

/** The worker's configuration file (JSON). Passwords are never in it: see docs/team.md. */
export const WorkerConfig = z
  .object({
    server: BaseUrl,
    user: z.string().trim().min(1),
    zone: IanaZone,
    db: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'a postgres:// connection string')
      .refine((url) => passwordInUrl(url) === null, {
        message: 'put the password in PGPASSWORD or ~/.pgpass, not in the file (no user:password@, ?password= or ?sslpassword=)'
      }),
    schema: SchemaName,
    sslMode: SslMode.optional(),
    sslRootCert: z.string().optional(),
    rateLimit: RateLimit.default({ requests: 60, perSeconds: 60 }),
    intervalMinutes: z
      .number()
      .min(0.01)
      .max(24 * 60)
      .default(15),
    lookbackHours: z
      .number()
      .int()
      .min(0)
      .max(24 * 366)
      .default(48),
    /** How often a running scope's lease is renewed; it lapses after three missed beats. */
    heartbeatSeconds: z.number().min(0.05).max(300).default(10),
    /** Membership passes after each scope that holds every call (docs/team.md). */
    memberships: MembershipsConfig,
    /**
     * How long a full re-read of each scope's range may take, spread over the cycles ("7d",
     * "12h", "90m"); false: none. Changes older than the look-back arrive through it.
     */
    fullPassEvery: z.union([z.literal(false), Duration]).default(7 * DAY),
    /** The share of the tenant's limit the worker leaves for people's live searches. */
    headroom: z.number().min(0).max(0.9).default(0.2),
    /** Membership passes run at once over the worker's one limiter; 1 runs them one by one in list order. */
    passConcurrency: z.number().int().min(1).max(MAX_PASS_CONCURRENCY).default(PASS_CONCURRENCY),
    scopes: z.array(WorkerScopeConfig).min(1).max(50)
  })
  .strict()
  .refine((c) => new Set(c.scopes.map((s) => s.name)).size === c.scopes.length, { message: 'scope names must differ' })
export type WorkerConfig = z.infer<typeof WorkerConfig>

/** The limit the worker's own limiter keeps to: the tenant's, less the share left for people. */
export function workerRateLimit(cfg: Pick<WorkerConfig, 'rateLimit' | 'headroom'>): WorkerConfig['rateLimit'] {
  return { ...cfg.rateLimit, requests: Math.max(1, Math.floor(cfg.rateLimit.requests * (1 - cfg.headroom))) }
}

/** The scope's range at `now` (whole seconds: the service reads whole seconds). */
export function scopeAt(cfg: WorkerScopeConfig, now: number): SyncScopeInput {
  const to = Math.floor(now / 1000) * 1000
  const from = cfg.from !== undefined ? Date.parse(cfg.from) : to - cfg.days! * DAY
  return {
    from,
    to,
    callTypes: cfg.types,
    direction: cfg.direction,
    results: cfg.results,
    hasNewRequest: cfg.hasNewRequest,
    includeAnalysis: cfg.analysis
  }
}
