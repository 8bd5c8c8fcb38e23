/**
 * Tenants, users, allow lists, rate limits and the call type catalog: from a JSON config
 * (file or object), falling back to the single demo tenant. Validated with zod at the boundary.
 */
import { readFileSync } from 'node:fs'
import { z } from 'zod'
import { isValidZone } from './zoned-time'
import type { RateLimit, RateWindow, ServiceOptions } from './types'

export interface CallType {
  Value: string
  Description: string
}

export const DEFAULT_CATALOG: CallType[] = [
  { Value: 'BillingDispute', Description: 'Fatura İtirazı' },
  { Value: 'Cancellation', Description: 'İptal Talebi' },
  { Value: 'Complaint', Description: 'Şikayet' },
  { Value: 'TechnicalSupport', Description: 'Teknik Destek' },
  { Value: 'Refund', Description: 'İade Talebi' },
  { Value: 'Information', Description: 'Bilgi Talebi' },
  { Value: 'Sales', Description: 'Satış' },
  { Value: 'AddressChange', Description: 'Adres Değişikliği' },
  { Value: 'Campaign', Description: 'Kampanya' },
  { Value: 'PaymentIssue', Description: 'Ödeme Sorunu' }
]

const zone = z.string().refine(isValidZone, { message: 'not an IANA time zone' })
const rateLimit = z.object({ requests: z.number().int().positive(), perSeconds: z.number().positive() })

const userSchema = z.object({
  username: z.string().min(1),
  email: z.string().min(3),
  password: z.string().min(1),
  zone: zone.optional()
})

const tenantSchema = z.object({
  name: z.string().min(1),
  users: z.array(userSchema).min(1),
  allowIps: z.array(z.string()).nullable().optional(),
  rateLimit: rateLimit.optional(),
  callTypes: z
    .array(z.object({ Value: z.string().min(1), Description: z.string().min(1) }))
    .min(1)
    .max(255)
    .optional(),
  calls: z.number().int().min(0).optional(),
  seed: z.number().int().optional()
})

export const configSchema = z.object({ tenants: z.array(tenantSchema).min(1) })

export interface UserConfig {
  username: string
  email: string
  password: string
  zone: string
}

export interface TenantConfig {
  name: string
  users: UserConfig[]
  allowIps: string[] | null
  rateLimit: RateLimit
  rateWindow: RateWindow
  callTypes: CallType[]
  calls: number
  seed: number
}

export const DEFAULT_RATE_LIMIT: RateLimit = { requests: 60, perSeconds: 60 }

export function loadTenants(opts: ServiceOptions): TenantConfig[] {
  const defaultZone = opts.tz ?? 'Europe/Istanbul'
  if (!isValidZone(defaultZone)) throw new Error(`Unknown time zone "${defaultZone}".`)
  const base = {
    allowIps: opts.allowIps ?? null,
    rateLimit: opts.rateLimit ?? DEFAULT_RATE_LIMIT,
    rateWindow: { kind: opts.rateWindow ?? 'sliding', ...(opts.rateBurst !== undefined ? { burst: opts.rateBurst } : {}) } as RateWindow,
    calls: opts.calls ?? 5000,
    seed: opts.seed ?? 1
  }
  if (opts.config === undefined) {
    return [
      {
        name: 'demo',
        users: [{ username: 'demo', email: 'demo@callsight.local', password: 'demo', zone: defaultZone }],
        callTypes: DEFAULT_CATALOG,
        ...base
      }
    ]
  }
  const raw: unknown = typeof opts.config === 'string' ? JSON.parse(readFileSync(opts.config, 'utf8')) : opts.config
  const parsed = configSchema.safeParse(raw)
  if (!parsed.success) {
    const first = parsed.error.issues[0]
    throw new Error(`Invalid service config at ${first?.path.join('.') || '(root)'}: ${first?.message ?? 'invalid'}`)
  }
  const names = new Set<string>()
  return parsed.data.tenants.map((t, i) => {
    if (names.has(t.name)) throw new Error(`Duplicate tenant "${t.name}" in service config.`)
    names.add(t.name)
    return {
      name: t.name,
      users: t.users.map((u) => ({ ...u, zone: u.zone ?? defaultZone })),
      allowIps: t.allowIps === undefined ? base.allowIps : t.allowIps,
      rateLimit: t.rateLimit ?? base.rateLimit,
      rateWindow: base.rateWindow,
      callTypes: t.callTypes ?? DEFAULT_CATALOG,
      calls: t.calls ?? base.calls,
      seed: t.seed ?? base.seed + i
    }
  })
}
