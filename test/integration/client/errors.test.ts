import { randomBytes } from 'node:crypto'
import { afterEach, describe, it, expect } from 'vitest'
import type { FetchLike } from '../../../src/core/platform'
import type { RunningService } from '../../../src/reference-service'
import { DEMO, failure, params, rig, service } from './harness'

let svc: RunningService | undefined
afterEach(async () => {
  await svc?.stop()
  svc = undefined
})

const CALLS_PATH = '/api/app/public-calls/get-calls'

async function signedIn(opts: Parameters<typeof rig>[1] = {}) {
  svc ??= await service()
  const r = rig(svc, opts)
  await r.session.login(DEMO.username, DEMO.password)
  return r
}

describe('error taxonomy over real HTTP, down to the words a person reads', () => {
  it('403 from the allow list: IpNotAllowed with the egress hint', async () => {
    svc = await service({ allowIps: ['10.20.0.0/16', '192.0.2.7'] })
    const e = await failure(rig(svc).session.login(DEMO.username, DEMO.password))
    expect(e.toInfo()).toEqual({
      code: 'IpNotAllowed',
      message: "The service does not accept connections from this computer's network address.",
      hint: "Ask the service operators to add this workstation's egress IP address (or its network range, in CIDR form) to the tenant's allow list.",
      status: 403
    })
    svc.admin.setAllowList(['127.0.0.1'])
    await rig(svc).session.login(DEMO.username, DEMO.password)
  })

  it('429: waits for Retry-After, then succeeds and lowers its pace', async () => {
    svc = await service({ rateLimit: { requests: 3, perSeconds: 1 } })
    // A limiter that believes the tenant allows far more: the service has to say 429.
    const r = rig(svc, { limit: { requests: 100, perSeconds: 1 } })
    await r.session.login(DEMO.username, DEMO.password)
    const started = Date.now()
    const pages = await Promise.all([0, 1, 2, 3].map((i) => r.session.getCalls(params({ skip: i, take: 1 }))))
    expect(pages.every((p) => p.records.length === 1)).toBe(true)
    expect(svc.admin.stats().byStatus['429']).toBeGreaterThanOrEqual(1)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    expect(r.limiter.stats.rateLimited).toBeGreaterThanOrEqual(1)
    expect(r.limiter.pace).toBeLessThan(1)
  })

  it('429 past the retry limit: RateLimited carrying retryAfterSeconds', async () => {
    svc = await service({ rateLimit: { requests: 2, perSeconds: 30 } })
    const r = rig(svc, { limit: { requests: 100, perSeconds: 1 }, client: { maxRetries: 0 } })
    await r.session.login(DEMO.username, DEMO.password)
    await r.session.getCalls(params({ take: 1 }))
    const e = await failure(r.session.getCalls(params({ take: 1 })))
    expect(e.code).toBe('RateLimited')
    expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(28)
    expect(e.retryAfterSeconds).toBeLessThanOrEqual(30)
    expect(e.message).toBe(`The service is receiving too many requests for this account; it asked to wait ${e.retryAfterSeconds} seconds.`)
  })

  it('400 validation: fields parsed from the ABP format', async () => {
    const r = await signedIn()
    const e = await failure(r.session.getCalls(params({ take: 600 })))
    expect(e.toInfo()).toEqual({
      code: 'Validation',
      message: 'The service rejected the request as invalid: The field take must be between 0 and 500.',
      fields: [{ members: ['take'], message: 'The field take must be between 0 and 500.' }],
      status: 400
    })
    // A 4xx is never retried.
    expect(svc!.admin.stats().byPath[CALLS_PATH]).toBe(1)
  })

  it('an undefined call type: UnknownCallType naming it', async () => {
    const r = await signedIn()
    const e = await failure(r.session.getCalls(params({ callTypes: ['Complaint', 'Teleportation'] })))
    expect(e.code).toBe('UnknownCallType')
    expect(e.callType).toBe('Teleportation')
    expect(e.message).toBe('The service does not know the call type "Teleportation".')
    // Catalog names match by Value or Description.
    const ok = await r.session.getCalls(params({ callTypes: ['Complaint', 'Fatura İtirazı'] }))
    expect(ok.records.length).toBeGreaterThan(0)
  })

  it('401 with a bad token straight from the client: Unauthorized', async () => {
    svc = await service()
    const e = await failure(rig(svc).client.getCalls(params(), 'not-a-token'))
    expect(e.toInfo()).toEqual({ code: 'Unauthorized', message: 'The service did not accept the sign-in token.', status: 401 })
  })

  it('5xx: retried with backoff up to the limit, then ServerError', async () => {
    const r = await signedIn({ client: { maxRetries: 2 } })
    svc!.admin.setFaults({ errorRate: 1, errorStatuses: [503], paths: [CALLS_PATH] })
    const e = await failure(r.session.getCalls(params()))
    expect(e.toInfo()).toEqual({
      code: 'ServerError',
      message: 'The service had an internal problem (HTTP 503); please try again later.',
      status: 503
    })
    expect(svc!.admin.stats().byPath[CALLS_PATH]).toBe(3)
    // Transient: once the fault clears the next call works.
    svc!.admin.clearFaults()
    expect((await r.session.getCalls(params({ take: 3 }))).records).toHaveLength(3)
  })

  it('a flaky 5xx is absorbed by the retries', async () => {
    const r = await signedIn({ client: { maxRetries: 6 } })
    svc!.admin.setFaults({ errorRate: 0.5, errorStatuses: [500, 502], paths: [CALLS_PATH] })
    for (let i = 0; i < 5; i++) expect((await r.session.getCalls(params({ skip: i, take: 2 }))).records).toHaveLength(2)
  })

  it('dropped connections: retried, then Network', async () => {
    const r = await signedIn({ client: { maxRetries: 1 } })
    svc!.admin.setFaults({ dropRate: 1, paths: [CALLS_PATH] })
    const e = await failure(r.session.getCalls(params()))
    expect(e.toInfo()).toEqual({
      code: 'Network',
      message: 'Could not reach the service; check the network connection and the service address.'
    })
    expect(svc!.admin.stats().byStatus['dropped']).toBe(2)
  })

  it('a service that is not there: Network', async () => {
    const stopped = await service()
    await stopped.stop()
    // Nothing listens on its port any more: connection refused.
    const r = rig(stopped, { client: { maxRetries: 1 } })
    expect((await failure(r.session.login(DEMO.username, DEMO.password))).code).toBe('Network')
  })

  it('a refused connection at sign-in: said at once, without the retries a sync would make', async () => {
    const stopped = await service()
    await stopped.stop()
    // The default policy (4 retries from 500 ms) would take about 7.5 s before giving up (at
    // least 3.75 s with its jitter): one attempt, and well under that, however loaded the machine.
    let attempts = 0
    const counted: FetchLike = (input, init) => {
      attempts++
      return fetch(input, init)
    }
    const r = rig(stopped, { client: { fetch: counted, retry: { baseDelayMs: 500, maxDelayMs: 20_000 } } })
    const started = performance.now()
    const e = await failure(r.session.login(DEMO.username, DEMO.password))
    expect(attempts).toBe(1)
    expect(performance.now() - started).toBeLessThan(3_000)
    expect(e.toInfo()).toMatchObject({ code: 'Network', message: 'Nothing answered at the service address: the connection was refused.' })
    // A sync page is still retried: there, the service coming back soon is worth waiting for.
    const slow = rig(stopped, { client: { maxRetries: 2, retry: { baseDelayMs: 200, maxDelayMs: 200 } } })
    const t0 = performance.now()
    expect((await failure(slow.client.getCalls(params(), 'token'))).code).toBe('Network')
    // Two retries, each waiting at least half its 200 ms step (equal jitter).
    expect(performance.now() - t0).toBeGreaterThanOrEqual(190)
  })

  it('truncated body: the broken-off response is retried, then reported', async () => {
    const r = await signedIn({ client: { maxRetries: 1 } })
    svc!.admin.setFaults({ truncateRate: 1, paths: [CALLS_PATH] })
    const e = await failure(r.session.getCalls(params()))
    expect(e.toInfo()).toEqual({
      code: 'Network',
      message: 'The connection to the service broke off in the middle of a response; please try again.'
    })
  })

  it('malformed JSON: MalformedResponse', async () => {
    const r = await signedIn()
    svc!.admin.setFaults({ malformedRate: 1, paths: [CALLS_PATH] })
    const e = await failure(r.session.getCalls(params()))
    expect(e.toInfo()).toEqual({ code: 'MalformedResponse', message: 'The service sent a response Callsight could not read.', status: 200 })
  })

  it('an unexpected status (a proxy page): one sentence, no body', async () => {
    const r = await signedIn()
    svc!.admin.setFaults({ errorRate: 1, errorStatuses: [404], paths: [CALLS_PATH] })
    const e = await failure(r.session.getCalls(params()))
    expect(e.toInfo()).toEqual({ code: 'ServerError', message: 'The service answered with an unexpected status (HTTP 404).', status: 404 })
  })

  it('a slow service: Timeout after the retries', async () => {
    // Signed in under the default timeout: a sign-in held up past 200 ms by a loaded machine
    // would fail the test with the Timeout it expects of the page, at the wrong step.
    const key = randomBytes(32)
    const signed = await signedIn({ key })
    const r = rig(svc!, { store: signed.store, key, client: { timeoutMs: 200, maxRetries: 1 } })
    expect(await r.session.restore()).toBe(true)
    svc!.admin.setFaults({ latencyMs: 1_000, paths: [CALLS_PATH] })
    const e = await failure(r.session.getCalls(params()))
    expect(e.toInfo()).toEqual({ code: 'Timeout', message: 'The service did not answer within 1 second.' })
  })

  it('cancels while waiting on the limiter and during backoff', async () => {
    const r = await signedIn({
      limit: { requests: 2, perSeconds: 60 },
      client: { maxRetries: 5, retry: { baseDelayMs: 5_000, maxDelayMs: 5_000 } }
    })
    // The login used one token, this call the second; the next waits a minute.
    await r.session.getCalls(params({ take: 1 }))
    const ac = new AbortController()
    const waiting = r.session.getCalls(params(), ac.signal)
    setTimeout(() => ac.abort(), 50)
    expect((await failure(waiting)).toInfo()).toEqual({ code: 'Cancelled', message: 'The request was cancelled.' })

    const r2 = await signedIn({ client: { maxRetries: 5, retry: { baseDelayMs: 5_000, maxDelayMs: 5_000 } } })
    svc!.admin.setFaults({ errorRate: 1, errorStatuses: [503], paths: [CALLS_PATH] })
    const ac2 = new AbortController()
    const started = Date.now()
    const backingOff = r2.session.getCalls(params(), ac2.signal)
    setTimeout(() => ac2.abort(), 150)
    expect((await failure(backingOff)).code).toBe('Cancelled')
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})
