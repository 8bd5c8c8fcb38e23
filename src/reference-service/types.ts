/** The programmatic surface of the reference service (tests, benchmarks, the app's demo mode). */
import type { DateFormat } from './zoned-time'

/** How the service counts a tenant's limit: `--rate-window fixed|sliding|bucket [--rate-burst N]`. */
export interface RateWindow {
  kind: 'fixed' | 'sliding' | 'bucket'
  /** Bucket only: tokens it holds; default the limit's requests. */
  burst?: number
}

export interface RateLimit {
  requests: number
  perSeconds: number
}

export type Envelope = 'paged' | 'array' | 'wrapped'

export interface ServiceOptions {
  /** Interface to bind; default '127.0.0.1'. */
  host?: string
  /** Default 0 (any free port). */
  port?: number
  /** Calls generated for the demo tenant (or each configured tenant without its own count); default 5000. */
  calls?: number
  /** Default 1. */
  seed?: number
  /** ISO instants for the generated range; default the 90 days before now. */
  from?: string
  to?: string
  /** Per tenant; default 60 requests per 60 s. */
  rateLimit?: RateLimit
  /** How every tenant's limit is counted; default a sliding window. */
  rateWindow?: RateWindow['kind']
  /** With rateWindow 'bucket': the tokens the bucket holds; default the limit's requests. */
  rateBurst?: number
  /** Access-token lifetime in seconds; default 604800. */
  tokenTtlSeconds?: number
  /**
   * The clock tokens are issued and checked by (epoch ms); default Date.now. Tests move it on
   * to expire tokens at a chosen moment instead of racing a one-second lifetime.
   */
  tokenClock?: () => number
  /** Refresh-token lifetime in seconds; default 14 days. */
  refreshTtlSeconds?: number
  /** How long a redeemed refresh token may still be used; default 30 s. */
  refreshLeewaySeconds?: number
  /**
   * Failed sign-ins allowed per user name and per client address (sliding windows), apart
   * from the tenant's API limit; default 10 and 30 per 60 s.
   */
  loginLimits?: { perUser?: RateLimit; perAddress?: RateLimit }
  /** Single IPs and CIDRs, v4 and v6; null/undefined = unrestricted. Applies to the demo tenant. */
  allowIps?: string[] | null
  envelope?: Envelope
  /** How callDate is written: with the user's offset (default), with Z, or local without zone. */
  dateFormat?: DateFormat
  /** The demo user's IANA zone; default 'Europe/Istanbul'. */
  tz?: string
  /** Extra calls piled into single seconds (on top of `calls`). */
  denseSeconds?: Array<{ at: string; count: number }>
  /** JSON tenant config: a file path or the parsed object (see docs/service.md). */
  config?: string | object
  /** Faults active from the start. */
  faults?: Faults
  quiet?: boolean
}

export interface Faults {
  latencyMs?: number
  errorRate?: number
  errorStatuses?: number[]
  dropRate?: number
  malformedRate?: number
  truncateRate?: number
  /** Route paths the faults apply to; default every public route. */
  paths?: string[]
}

export interface AnalysisItem {
  key: string
  friendlyName: string
  value: string
}

/** A call record as served. */
export interface CallRecord {
  callId: string
  callDate: string
  title: string
  summary: string
  analysis: AnalysisItem[]
  durationSeconds: number
  agentName: string
  language: string
}

/** A call as served with includeAnalysis:true and results:null, plus its filterable attributes. */
export interface DumpRecord extends CallRecord {
  type: string
  direction: number
  result: number
  hasNewRequest: boolean
}

export interface RawCallInput {
  at: string
  title: string
  summary: string
  type?: string
  direction?: number
  result?: number
  hasNewRequest?: boolean
  tenant?: string
}

export interface ServiceStats {
  requests: number
  byStatus: Record<string, number>
  byPath: Record<string, number>
}

export interface ServiceAdmin {
  setFaults(f: Faults): void
  clearFaults(): void
  setRateLimit(limit: RateLimit, tenant?: string): void
  setAllowList(list: string[] | null, tenant?: string): void
  setTokenTtl(seconds: number): void
  /** Adds generated calls; returns the tenant's new total. */
  addCalls(count: number, opts?: { from?: string; to?: string; tenant?: string }): number
  /** Changes summary and analysis of existing calls (late analysis); returns their callIds. */
  updateCalls(count: number, opts?: { tenant?: string }): string[]
  /** Stops returning these calls, as a service that dropped them would; returns how many it had. */
  removeCalls(callIds: string[], opts?: { tenant?: string }): number
  /** Adds one call with the given raw (unmasked) texts; returns its callId. */
  addRawCall(call: RawCallInput): string
  dump(tenant?: string): DumpRecord[]
  /** The same records one at a time, for large tenants. */
  dumpEach(tenant?: string): IterableIterator<DumpRecord>
  stats(): ServiceStats
  resetStats(): void
}

export interface RunningService {
  /** Base URL without a trailing slash. */
  url: string
  adminKey: string
  admin: ServiceAdmin
  stop(): Promise<void>
}
