import { sentRange } from '../dates'
import { CallsightError } from '../errors'
import { guardRecord } from '../pii'
import type { Clock, FetchLike, Logger } from '../platform'
import { silentLogger, systemClock } from '../platform/node'
import type { RequestPacer } from '../ratelimit/pacer'
import { readRateHeaders } from '../ratelimit/rate-headers'
import { holdCapMs, parseRetryAfter, retryAfterHoldMs } from '../ratelimit/retry-after'
import type { CallRecord, ResultsFilter } from '../../shared/domain'
import { type Endpoint, MESSAGES, mapHttpFailure } from './error-map'
import { AttemptError, type BodyLimit, type RawResponse, exchange } from './http'
import { normalizeEnvelope, toCallRecord } from './records'
import { redactingLogger } from '../logging/redact'
import { DEFAULT_RETRY, type RetryPolicy, backoffMs, isRetryableStatus } from './retry'
import { TokenResponse } from './schemas'

export interface TokenSet {
  accessToken: string
  refreshToken: string
  /** Epoch ms. */
  expiresAt: number
  scope: string
}

export interface GetCallsParams {
  from: number
  /** Exclusive. */
  to: number
  skip: number
  take: number
  ascending: boolean
  sortColumn?: string
  callTypes: string[]
  direction: number | null
  results: ResultsFilter
  hasNewRequest: boolean | null
  includeAnalysis: boolean
}

export interface CallsPage {
  /** Usable records, PII-guarded. */
  records: CallRecord[]
  totalCount: number | null
  malformed: Array<{ index: number; reason: string }>
  requestedTake: number
  /** Items the service returned, malformed ones included. */
  returned: number
}

export interface WaitInfo {
  reason: 'retryAfter' | 'backoff'
  ms: number
  attempt: number
}

export interface ServiceClientOptions {
  baseUrl: string
  /** The account's IANA zone: sent dates are written in it and zone-less callDates read in it. */
  zone: string
  fetch: FetchLike
  limiter: RequestPacer
  clock?: Clock
  logger?: Logger
  /** Per attempt, body included; default 30 s. */
  timeoutMs?: number
  /** Further attempts after a transient failure or a 429; default 4. */
  maxRetries?: number
  /** Backoff tuning; tests pin `random`. */
  retry?: Partial<Omit<RetryPolicy, 'maxRetries'>>
  /** Told about every wait the client itself takes (not the limiter's). */
  onWait?: (w: WaitInfo) => void
}

export interface ServiceClient {
  readonly baseUrl: string
  readonly zone: string
  login(username: string, password: string, signal?: AbortSignal): Promise<TokenSet>
  refresh(refreshToken: string, signal?: AbortSignal): Promise<TokenSet>
  /**
   * `accessToken` may be a provider: it is then asked only once the tenant's limiter admits
   * the request, so a token never goes stale while the request waits its turn.
   */
  getCalls(params: GetCallsParams, accessToken: AccessTokenSource, signal?: AbortSignal): Promise<CallsPage>
}

export type AccessTokenSource = string | (() => Promise<string>)

export const PATHS = {
  login: '/api/public/auth/token',
  refresh: '/connect/token',
  calls: '/api/app/public-calls/get-calls'
} as const

export const CLIENT_ID = 'ServicePublic_App'
export const DEFAULT_SORT_COLUMN = 'start_time_dt'
/** The spec's token lifetime, used when a response leaves expires_in out. */
const DEFAULT_EXPIRES_IN = 604_800

/**
 * The most a 2xx body may hold. A token response is a few hundred bytes. A page of calls is
 * bounded by what was asked for: a megabyte of envelope plus 64 KB a record on average,
 * generous for a title, a summary and the analysis items (33 MB for a take of 500).
 */
export const BODY_LIMITS = {
  tokenBytes: 64 * 1024,
  pageBaseBytes: 1024 * 1024,
  perRecordBytes: 64 * 1024
} as const

export function pageBodyLimit(take: number): BodyLimit {
  return { okBytes: BODY_LIMITS.pageBaseBytes + Math.max(1, take) * BODY_LIMITS.perRecordBytes }
}

const TOKEN_LIMIT: BodyLimit = { okBytes: BODY_LIMITS.tokenBytes }

/** The get-calls body. `results` absent / null / list is the user's choice and is kept exact. */
export function buildCallsBody(p: GetCallsParams, zone: string): Record<string, unknown> {
  const range = sentRange(p.from, p.to, zone)
  const body: Record<string, unknown> = {
    startTime: range.startTime,
    endTime: range.endTime,
    skip: p.skip,
    take: p.take,
    sortColumn: p.sortColumn ?? DEFAULT_SORT_COLUMN,
    isAscending: p.ascending,
    issueTypeNames: p.callTypes,
    includeAnalysis: p.includeAnalysis
  }
  if (p.hasNewRequest !== null) body.hasNewRequest = p.hasNewRequest
  if (p.direction !== null) body.direction = p.direction
  if (p.results === 'all') body.results = null
  else if (p.results !== 'answered') body.results = p.results
  return body
}

function parseBody(r: RawResponse): unknown {
  try {
    return JSON.parse(r.body) as unknown
  } catch {
    throw new CallsightError('MalformedResponse', MESSAGES.malformed, { status: r.status })
  }
}

export function createServiceClient(opts: ServiceClientOptions): ServiceClient {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '')
  const clock = opts.clock ?? systemClock
  const log = redactingLogger(opts.logger ?? silentLogger)
  const timeoutMs = opts.timeoutMs ?? 30_000
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...opts.retry, maxRetries: opts.maxRetries ?? DEFAULT_RETRY.maxRetries }

  /** Sends through the tenant's limiter with the retry policy; returns the first 2xx. */
  async function send(
    endpoint: Endpoint,
    init: RequestInit | (() => Promise<RequestInit>),
    signal: AbortSignal | undefined,
    limit: BodyLimit,
    callTypes: readonly string[] = []
  ): Promise<RawResponse> {
    const url = baseUrl + PATHS[endpoint]
    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < policy.maxRetries
      await opts.limiter.acquire(signal)
      let res: RawResponse
      try {
        // Built after the limiter's wait: what goes into it (the access token) must be current.
        const request = typeof init === 'function' ? await init() : init
        res = await exchange(opts.fetch, clock, url, request, timeoutMs, signal, limit)
      } catch (e) {
        opts.limiter.settle?.()
        if (!(e instanceof AttemptError)) throw e
        log.log('warn', `${endpoint}: ${e.error.code} on attempt ${attempt + 1}`)
        // A refused connection at sign-in is reported at once: someone is waiting at the form,
        // and a port nothing listens on does not start listening in the next few seconds.
        if (!e.retryable || !canRetry || (e.refused && endpoint === 'login')) throw e.error
        await wait('backoff', backoffMs(attempt, policy), attempt, signal)
        continue
      }
      // The answer is in: the limiter may let the next request go while it is slowed down.
      opts.limiter.settle?.()
      log.log('debug', `${endpoint}: HTTP ${res.status}`, { attempt: attempt + 1 })
      const hint = readRateHeaders(res.headers, clock.now())
      if (hint) opts.limiter.learn(hint)
      if (res.status >= 200 && res.status < 300) return res
      if (res.status === 429) {
        const header = res.headers.get('retry-after')
        const afterMs = retryAfterHoldMs(header, clock.now(), opts.limiter.limit)
        opts.limiter.penalize(afterMs)
        if (!canRetry) {
          // The person is told what the service asked for, not the bounded hold.
          const seconds = Math.max(1, Math.ceil((parseRetryAfter(header, clock.now()) ?? afterMs) / 1000))
          throw new CallsightError('RateLimited', MESSAGES.rateLimited(seconds), { retryAfterSeconds: seconds, status: 429 })
        }
        // The limiter holds this and every other request of the tenant for Retry-After.
        opts.onWait?.({ reason: 'retryAfter', ms: afterMs, attempt })
        continue
      }
      if (isRetryableStatus(res.status) && canRetry) {
        const given = parseRetryAfter(res.headers.get('retry-after'), clock.now())
        const afterMs = Math.min(given ?? 0, holdCapMs(opts.limiter.limit))
        // A 503 with Retry-After says the service is overloaded: the whole tenant holds.
        if (given !== null && res.status === 503) opts.limiter.hold(afterMs)
        await wait('backoff', Math.max(afterMs, backoffMs(attempt, policy)), attempt, signal)
        continue
      }
      throw mapHttpFailure(res, endpoint, callTypes)
    }
  }

  async function wait(reason: WaitInfo['reason'], ms: number, attempt: number, signal: AbortSignal | undefined): Promise<void> {
    opts.onWait?.({ reason, ms, attempt })
    await clock.sleep(ms, signal)
  }

  function toTokens(r: RawResponse, previousRefresh: string | null): TokenSet {
    const parsed = TokenResponse.safeParse(parseBody(r))
    if (!parsed.success) throw new CallsightError('MalformedResponse', MESSAGES.malformed, { status: r.status })
    const t = parsed.data
    const refreshToken = t.refresh_token ?? previousRefresh
    if (!refreshToken) throw new CallsightError('MalformedResponse', MESSAGES.malformed, { status: r.status })
    return {
      accessToken: t.access_token,
      refreshToken,
      expiresAt: clock.now() + (t.expires_in ?? DEFAULT_EXPIRES_IN) * 1000,
      scope: t.scope ?? ''
    }
  }

  return {
    baseUrl,
    zone: opts.zone,
    async login(username, password, signal) {
      const res = await send(
        'login',
        {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ username, password })
        },
        signal,
        TOKEN_LIMIT
      )
      return toTokens(res, null)
    },
    async refresh(refreshToken, signal) {
      const form = new URLSearchParams({ grant_type: 'refresh_token', client_id: CLIENT_ID, refresh_token: refreshToken })
      const res = await send(
        'refresh',
        {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
          body: form.toString()
        },
        signal,
        TOKEN_LIMIT
      )
      return toTokens(res, refreshToken)
    },
    async getCalls(params, accessToken, signal) {
      const body = buildCallsBody(params, opts.zone)
      const payload = JSON.stringify(body)
      const res = await send(
        'calls',
        async () => ({
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            authorization: `Bearer ${typeof accessToken === 'string' ? accessToken : await accessToken()}`
          },
          body: payload
        }),
        signal,
        pageBodyLimit(params.take),
        params.callTypes
      )
      const envelope = normalizeEnvelope(parseBody(res))
      const records: CallRecord[] = []
      const malformed: CallsPage['malformed'] = []
      envelope.items.forEach((item, index) => {
        const r = toCallRecord(item, opts.zone)
        if (r.ok) records.push(guardRecord(r.record))
        else malformed.push({ index, reason: r.reason })
      })
      if (malformed.length > 0) log.log('warn', `calls: ${malformed.length} malformed record(s) in a page of ${envelope.items.length}`)
      return { records, totalCount: envelope.totalCount, malformed, requestedTake: params.take, returned: envelope.items.length }
    }
  }
}
