/** A tenant at run time: its users, calls, catalog, allow list and rate limiter. */
import { CallStore, type CallAttributes } from './call-store'
import type { CallType, TenantConfig } from './config'
import { generateTimes, type TimeRange } from './generator'
import { compileAllowList, type AllowCheck } from './ip-allow'
import { hashPassword } from './passwords'
import { createTenantLimiter, type TenantLimiter } from './rate-limit'
import { Rng, mix, hashString } from './rng'
import { ZoneFormatter, type DateFormat } from './zoned-time'
import type { RateLimit, RateWindow } from './types'

export interface User {
  username: string
  email: string
  passwordHash: string
  zone: string
  formatter: ZoneFormatter
}

export class Tenant {
  readonly store: CallStore
  readonly limiter: TenantLimiter
  allow: AllowCheck | null
  allowEntries: string[] | null
  rangeTo: number
  private updates = 0
  /** Catalog lookup by Value and Description, compared under Turkish case rules. */
  private readonly typeByName = new Map<string, number>()

  constructor(
    readonly name: string,
    readonly users: User[],
    readonly catalog: CallType[],
    readonly seed: number,
    rateLimit: RateLimit,
    allowIps: string[] | null,
    range: TimeRange,
    rateWindow?: RateWindow
  ) {
    this.store = new CallStore(name, seed, catalog.length)
    this.limiter = createTenantLimiter(rateLimit, rateWindow)
    this.allowEntries = allowIps
    this.allow = compileAllowList(allowIps)
    this.rangeTo = range.to
    catalog.forEach((t, i) => {
      for (const n of [t.Value, t.Description]) if (!this.typeByName.has(fold(n))) this.typeByName.set(fold(n), i)
    })
  }

  /** The zone used for generation and for the dump: the tenant's first user's. */
  get zone(): string {
    return this.users[0]!.zone
  }

  typeIndex(name: string): number | undefined {
    return this.typeByName.get(fold(name))
  }

  setAllowList(entries: string[] | null): void {
    this.allow = compileAllowList(entries)
    this.allowEntries = entries
  }

  findUser(login: string): User | undefined {
    const l = login.toLocaleLowerCase('tr-TR')
    return this.users.find((u) => u.username.toLocaleLowerCase('tr-TR') === l || u.email.toLocaleLowerCase('tr-TR') === l)
  }

  generate(count: number, range: TimeRange, dense: Array<{ at: number; count: number }>): void {
    const times = generateTimes(count, range, this.zone, this.seed)
    const extra = dense.reduce((a, d) => a + d.count, 0)
    const all = new Float64Array(times.length + extra)
    all.set(times)
    let i = times.length
    for (const d of dense) for (let k = 0; k < d.count; k++) all[i++] = d.at
    this.store.load(all)
  }

  /** Adds generated calls in [from, to); returns the new total. */
  addCalls(count: number, range: TimeRange): number {
    const times = generateTimes(count, range, this.zone, mix(this.seed, this.store.n, 0xadd))
    this.store.insert(Array.from(times))
    this.rangeTo = Math.max(this.rangeTo, range.to)
    return this.store.n
  }

  addRawCall(at: number, title: string, summary: string, attrs: CallAttributes): string {
    const [key] = this.store.insert([at], [attrs])
    this.store.raw.set(key!, { title, summary })
    return this.store.callId(key!)
  }

  /** Late analysis: bumps the version of `count` distinct calls, which rewrites summary and analysis. */
  updateCalls(count: number): string[] {
    const n = this.store.n
    const rng = new Rng(mix(this.seed, 0x0bd, ++this.updates))
    const picked = new Set<number>()
    const want = Math.min(count, n)
    while (picked.size < want) picked.add(Math.floor(rng.next() * n))
    return [...picked].map((p) => {
      this.store.version[p] = Math.min(65535, this.store.version[p]! + 1)
      return this.store.callId(this.store.key[p]!)
    })
  }
}

function fold(s: string): string {
  return s.trim().toLocaleLowerCase('tr-TR')
}

export async function buildTenant(
  cfg: TenantConfig,
  dateFormat: DateFormat,
  range: TimeRange,
  dense: Array<{ at: number; count: number }>
): Promise<Tenant> {
  const users = await Promise.all(
    cfg.users.map(async (u) => ({
      username: u.username,
      email: u.email,
      zone: u.zone,
      passwordHash: await hashPassword(u.password),
      formatter: new ZoneFormatter(u.zone, dateFormat)
    }))
  )
  const tenant = new Tenant(
    cfg.name,
    users,
    cfg.callTypes,
    mix(cfg.seed, hashString(cfg.name)),
    cfg.rateLimit,
    cfg.allowIps,
    range,
    cfg.rateWindow
  )
  tenant.generate(cfg.calls, range, dense)
  return tenant
}
