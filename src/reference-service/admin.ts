/** The in-process admin surface; the /__admin HTTP endpoint is a thin layer over it. */
import { RESULTS } from './call-store'
import type { ServiceContext } from './context'
import { renderDumpRecord } from './records'
import type { Tenant } from './tenants'
import type { DumpRecord, Faults, RateLimit, RawCallInput, ServiceAdmin } from './types'

export function parseInstant(text: string, what: string): number {
  const ms = Date.parse(text)
  if (Number.isNaN(ms)) throw new Error(`${what} is not an ISO instant: "${text}"`)
  return Math.floor(ms / 1000)
}

function tenantOf(ctx: ServiceContext, name?: string): Tenant {
  if (name === undefined) return ctx.defaultTenant
  const t = ctx.tenants.get(name)
  if (!t) throw new Error(`Unknown tenant "${name}"`)
  return t
}

export function* dumpRecords(tenant: Tenant): Generator<DumpRecord> {
  const formatter = tenant.users[0]!.formatter
  for (let p = 0; p < tenant.store.n; p++) yield renderDumpRecord(tenant, p, formatter)
}

export function createAdmin(ctx: ServiceContext): ServiceAdmin {
  return {
    setFaults: (f: Faults) => ctx.faults.set(f),
    clearFaults: () => ctx.faults.clear(),
    setRateLimit(limit: RateLimit, tenant?: string) {
      if (!(Number.isInteger(limit.requests) && limit.requests > 0 && limit.perSeconds > 0))
        throw new Error('Rate limit needs requests >= 1 and perSeconds > 0')
      tenantOf(ctx, tenant).limiter.reset(limit)
    },
    setAllowList: (list: string[] | null, tenant?: string) => tenantOf(ctx, tenant).setAllowList(list),
    setTokenTtl(seconds: number) {
      if (!(Number.isInteger(seconds) && seconds >= 0)) throw new Error('Token lifetime must be a whole number of seconds >= 0')
      ctx.tokens.accessTtlSeconds = seconds
    },
    addCalls(count: number, opts?: { from?: string; to?: string; tenant?: string }) {
      const t = tenantOf(ctx, opts?.tenant)
      const now = Math.floor(Date.now() / 1000)
      // By default new calls land between the end of what exists and now, so they are newer.
      const from = opts?.from ? parseInstant(opts.from, 'from') : t.rangeTo
      const to = opts?.to ? parseInstant(opts.to, 'to') : Math.max(now, from + 1)
      if (!(to > from)) throw new Error('addCalls needs from < to')
      return t.addCalls(count, { from, to })
    },
    updateCalls: (count: number, opts?: { tenant?: string }) => tenantOf(ctx, opts?.tenant).updateCalls(count),
    removeCalls: (callIds: string[], opts?: { tenant?: string }) => tenantOf(ctx, opts?.tenant).store.remove(new Set(callIds)),
    addRawCall(call: RawCallInput) {
      const t = tenantOf(ctx, call.tenant)
      const type = call.type === undefined ? 0 : t.typeIndex(call.type)
      if (type === undefined) throw new Error(`Unknown call type "${call.type}"`)
      if (call.direction !== undefined && ![1, 2, 3].includes(call.direction)) throw new Error('direction must be 1, 2 or 3')
      if (call.result !== undefined && !(Number.isInteger(call.result) && call.result >= 1 && call.result <= 5))
        throw new Error('result must be 1 to 5')
      return t.addRawCall(parseInstant(call.at, 'at'), call.title, call.summary, {
        type,
        direction: call.direction ?? 1,
        result: call.result ?? RESULTS.Answered,
        hasNewRequest: call.hasNewRequest ?? false
      })
    },
    dump: (tenant?: string) => [...dumpRecords(tenantOf(ctx, tenant))],
    dumpEach: (tenant?: string) => dumpRecords(tenantOf(ctx, tenant)),
    stats: () => ({ requests: ctx.stats.requests, byStatus: { ...ctx.stats.byStatus }, byPath: { ...ctx.stats.byPath } }),
    resetStats: () => ctx.stats.reset()
  }
}
