import { afterEach, describe, it, expect } from 'vitest'
import type { RunningService } from '../../../src/reference-service'
import { remoteSearch } from '../../../src/core/client/remote-search'
import { SearchQuery } from '../../../src/shared/domain'
import { DEMO, FROM, TO, ZONE, params, rig, service } from './harness'

let svc: RunningService | undefined
afterEach(async () => {
  await svc?.stop()
  svc = undefined
})

const CALLS_PATH = '/api/app/public-calls/get-calls'

async function allCalls(r: ReturnType<typeof rig>): Promise<Map<string, number>> {
  const seen = new Map<string, number>()
  for (let skip = 0; ; skip += 500) {
    const page = await r.session.getCalls(params({ skip, take: 500 }))
    expect(page.malformed).toEqual([])
    for (const c of page.records) seen.set(c.callId, c.callAt)
    if (page.returned < 500) break
  }
  return seen
}

describe('envelopes and date formats', () => {
  it('reads every envelope and every callDate form to the same calls and instants', async () => {
    const results: Array<{ label: string; calls: Map<string, number>; total: number | null }> = []
    for (const envelope of ['paged', 'array', 'wrapped'] as const) {
      for (const dateFormat of ['offset', 'utc', 'naive'] as const) {
        svc = await service({ envelope, dateFormat, tz: ZONE, calls: 400 })
        const r = rig(svc)
        await r.session.login(DEMO.username, DEMO.password)
        const first = await r.session.getCalls(params({ take: 10 }))
        results.push({ label: `${envelope}/${dateFormat}`, calls: await allCalls(r), total: first.totalCount })
        await svc.stop()
        svc = undefined
      }
    }
    const reference = results[0]!
    expect(reference.calls.size).toBeGreaterThan(300)
    for (const r of results) {
      expect(r.calls, r.label).toEqual(reference.calls)
      expect(r.total, r.label).toBe(r.label.startsWith('array') ? null : reference.calls.size)
    }
    // Every instant is inside the requested range.
    for (const at of reference.calls.values()) {
      expect(at).toBeGreaterThanOrEqual(FROM)
      expect(at).toBeLessThanOrEqual(TO)
    }
  })

  it('keeps unknown fields verbatim in extra', async () => {
    svc = await service()
    const r = rig(svc)
    await r.session.login(DEMO.username, DEMO.password)
    const page = await r.session.getCalls(params({ take: 5, includeAnalysis: true }))
    const dump = new Map(svc.admin.dump().map((d) => [d.callId, d]))
    for (const rec of page.records) {
      const d = dump.get(rec.callId)!
      expect(rec.extra).toMatchObject({ durationSeconds: d.durationSeconds, agentName: d.agentName, language: d.language })
      expect(rec.analysis).toEqual(d.analysis)
    }
  })
})

describe('remoteSearch', () => {
  const query = (over: Partial<SearchQuery> = {}): SearchQuery => SearchQuery.parse({ from: FROM, to: TO, ...over })

  it('clamps take to its bound and sends results absent / null / list as chosen', async () => {
    svc = await service({ calls: 600 })
    const r = rig(svc)
    await r.session.login(DEMO.username, DEMO.password)
    const big = await remoteSearch(r.session, query({ results: 'all' }), 0, 5_000, false)
    expect(big.take).toBe(500)
    expect(big.records).toHaveLength(500)
    const withAnalysis = await remoteSearch(r.session, query({ results: 'all' }), 0, 5_000, true)
    expect(withAnalysis.take).toBe(100)
    expect(withAnalysis.records).toHaveLength(100)

    const dump = svc.admin.dump()
    const inRange = dump.filter((d) => Date.parse(d.callDate) >= FROM && Date.parse(d.callDate) < TO)
    const all = await remoteSearch(r.session, query({ results: 'all' }), 0, 10, false)
    const answered = await remoteSearch(r.session, query({ results: 'answered' }), 0, 10, false)
    const some = await remoteSearch(r.session, query({ results: [2, 3] }), 0, 10, false)
    expect(all.totalCount).toBe(inRange.length)
    expect(answered.totalCount).toBe(inRange.filter((d) => d.result === 1).length)
    expect(some.totalCount).toBe(inRange.filter((d) => d.result === 2 || d.result === 3).length)
    expect(answered.totalCount!).toBeLessThan(all.totalCount!)
  })

  it('tells a page lowered by the 10,000 window from the end of the results', async () => {
    svc = await service({ calls: 10_100 })
    const r = rig(svc)
    await r.session.login(DEMO.username, DEMO.password)
    const q = query({ results: 'all', sort: 'date_asc' })
    const normal = await remoteSearch(r.session, q, 9_800, 100, true)
    expect(normal).toMatchObject({ take: 100, loweredByCap: false, exhausted: false })
    expect(normal.records).toHaveLength(100)

    const lowered = await remoteSearch(r.session, q, 9_950, 100, true)
    expect(lowered.records).toHaveLength(50)
    expect(lowered.totalCount!).toBeGreaterThan(10_000)
    expect(lowered).toMatchObject({ loweredByCap: true, exhausted: true })

    // Past the window no request is sent.
    const requests = svc.admin.stats().byPath[CALLS_PATH]
    const beyond = await remoteSearch(r.session, q, 10_000, 100, true)
    expect(beyond).toMatchObject({ records: [], exhausted: true, loweredByCap: false })
    expect(svc.admin.stats().byPath[CALLS_PATH]).toBe(requests)

    // A short page that really is the end: fewer results than the page.
    const narrow = query({ results: 'all', from: FROM, to: FROM + 3 * 3_600_000 })
    const end = await remoteSearch(r.session, narrow, 0, 100, true)
    expect(end.records.length).toBeLessThan(100)
    expect(end).toMatchObject({ loweredByCap: false, exhausted: true })
  })

  it('asks for a date range', async () => {
    svc = await service()
    const r = rig(svc)
    await r.session.login(DEMO.username, DEMO.password)
    await expect(remoteSearch(r.session, SearchQuery.parse({}), 0, 10, false)).rejects.toMatchObject({
      code: 'InvalidInput',
      message: 'Choose a start and end date to search the service.'
    })
  })
})
