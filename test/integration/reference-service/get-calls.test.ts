import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DumpRecord, RunningService } from '../../../src/reference-service'
import { all, getCalls, login, page, start } from './helpers'

const WINDOW = { startTime: '2025-01-01T00:00:00', endTime: '2025-03-01T23:59:59' }

async function expectAbpValidation(res: Response, member: string): Promise<string[]> {
  expect(res.status).toBe(400)
  expect(res.headers.get('_abperrorformat')).toBe('true')
  const body = (await res.json()) as {
    error: { code: null; message: string; details: string; validationErrors: Array<{ message: string; members: string[] }> }
  }
  expect(body.error.code).toBeNull()
  expect(body.error.message).toBe('Your request is not valid!')
  expect(body.error.details).toContain('validation')
  expect(body.error.validationErrors.some((e) => e.members.includes(member))).toBe(true)
  return body.error.validationErrors.map((e) => e.message)
}

describe('get-calls over a 15,000-call tenant', () => {
  let s: RunningService
  let token: string
  let dump: DumpRecord[]
  beforeAll(async () => {
    s = await start({ calls: 15_000 })
    token = (await login(s.url)).access_token
    dump = s.admin.dump()
  })
  afterAll(() => s.stop())

  const answered = (): DumpRecord[] => dump.filter((d) => d.result === 1)

  it('answers in the paged envelope {totalCount, items} with the unlisted extra fields', async () => {
    const p = await page(s.url, token, { ...WINDOW, take: 5 })
    expect(Object.keys(p).sort()).toEqual(['items', 'totalCount'])
    expect(p.items).toHaveLength(5)
    for (const item of p.items) {
      expect(item.callId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(typeof item.durationSeconds).toBe('number')
      expect(typeof item.agentName).toBe('string')
      expect(item).not.toHaveProperty('phoneNumber')
    }
  })

  it('rule 1: lowers take so skip + take never passes 10,000, without an error', async () => {
    expect(answered().length).toBeGreaterThan(10_000)
    const near = await page(s.url, token, { ...WINDOW, skip: 9_900, take: 500 })
    expect(near.items).toHaveLength(100)
    expect(near.totalCount).toBe(answered().length)
    const beyond = await page(s.url, token, { ...WINDOW, skip: 10_000, take: 500 })
    expect(beyond.items).toHaveLength(0)
    expect(beyond.totalCount).toBe(answered().length)
  })

  it('rule 2: take is bounded by 500, or 100 with includeAnalysis', async () => {
    expect((await page(s.url, token, { ...WINDOW, take: 500 })).items).toHaveLength(500)
    expect((await page(s.url, token, { ...WINDOW, take: 100, includeAnalysis: true })).items).toHaveLength(100)
    await expectAbpValidation(await getCalls(s.url, token, { ...WINDOW, take: 501 }), 'take')
    const msgs = await expectAbpValidation(await getCalls(s.url, token, { ...WINDOW, take: 101, includeAnalysis: true }), 'take')
    expect(msgs.join(' ')).toContain('100')
  })

  it('rule 3: an undefined issueTypeNames entry gives 400 naming it; Value and Description both match', async () => {
    const msgs = await expectAbpValidation(
      await getCalls(s.url, token, { ...WINDOW, issueTypeNames: ['Refund', 'Uzay Yolculuğu'] }),
      'issueTypeNames'
    )
    expect(msgs.join(' ')).toContain('Uzay Yolculuğu')
    const expected = dump.filter((d) => d.result === 1 && (d.type === 'Refund' || d.type === 'Complaint')).length
    const byValue = await page(s.url, token, { ...WINDOW, take: 0, issueTypeNames: ['Refund', 'Complaint'] })
    const byDescription = await page(s.url, token, { ...WINDOW, take: 0, issueTypeNames: ['İade Talebi', 'ŞİKAYET'] })
    expect(byValue.totalCount).toBe(expected)
    expect(byDescription.totalCount).toBe(expected)
  })

  it('rule 4: results absent = Answered only, null = every result, a list = those results', async () => {
    expect((await page(s.url, token, { ...WINDOW, take: 0 })).totalCount).toBe(answered().length)
    expect((await page(s.url, token, { ...WINDOW, take: 0, results: null })).totalCount).toBe(dump.length)
    expect((await page(s.url, token, { ...WINDOW, take: 0, results: [2, 4] })).totalCount).toBe(
      dump.filter((d) => d.result === 2 || d.result === 4).length
    )
    const ids = new Set(dump.filter((d) => d.result === 3).map((d) => d.callId))
    const busy = await page(s.url, token, { ...WINDOW, take: 50, results: [3] })
    expect(busy.items.every((i) => ids.has(i.callId))).toBe(true)
    await expectAbpValidation(await getCalls(s.url, token, { ...WINDOW, results: [9] }), 'results')
  })

  it('rule 5: 400 in ABP format for a null or empty body, start after end, negative skip, bad take, malformed dates', async () => {
    await expectAbpValidation(await getCalls(s.url, token, 'null', true), 'input')
    await expectAbpValidation(await getCalls(s.url, token, '', true), 'input')
    await expectAbpValidation(await getCalls(s.url, token, '{"take": 5', true), 'input')
    await expectAbpValidation(
      await getCalls(s.url, token, { startTime: '2025-02-02T00:00:00', endTime: '2025-02-01T00:00:00' }),
      'startTime'
    )
    await expectAbpValidation(await getCalls(s.url, token, { ...WINDOW, skip: -1 }), 'skip')
    await expectAbpValidation(await getCalls(s.url, token, { ...WINDOW, take: -1 }), 'take')
    await expectAbpValidation(await getCalls(s.url, token, { ...WINDOW, take: 'ten' }), 'take')
    for (const bad of ['2025-02-30T00:00:00', '01.02.2025 10:00', '2025-02-01', 'yesterday']) {
      await expectAbpValidation(await getCalls(s.url, token, { startTime: bad, endTime: WINDOW.endTime }), 'startTime')
    }
  })

  it('filters by direction and hasNewRequest', async () => {
    for (const direction of [1, 2, 3]) {
      const p = await page(s.url, token, { ...WINDOW, take: 0, results: null, direction })
      expect(p.totalCount).toBe(dump.filter((d) => d.direction === direction).length)
    }
    const fresh = await page(s.url, token, { ...WINDOW, take: 0, results: null, hasNewRequest: true, direction: 1 })
    expect(fresh.totalCount).toBe(dump.filter((d) => d.hasNewRequest && d.direction === 1).length)
    await expectAbpValidation(await getCalls(s.url, token, { ...WINDOW, direction: 7 }), 'direction')
  })

  it('sorts by start_time_dt both ways, ties broken by callId, so paging is stable and complete', async () => {
    const asc = await all(s.url, token, {
      ...WINDOW,
      results: null,
      sortColumn: 'start_time_dt',
      isAscending: true,
      startTime: '2025-02-01T00:00:00'
    })
    const desc = await all(s.url, token, {
      ...WINDOW,
      results: null,
      sortColumn: 'start_time_dt',
      isAscending: false,
      startTime: '2025-02-01T00:00:00'
    })
    expect(asc.items.length).toBe(asc.totalCount)
    const key = (i: { callDate: string; callId: string }) => `${Date.parse(i.callDate).toString().padStart(15, '0')}|${i.callId}`
    const keys = asc.items.map(key)
    expect([...keys].sort()).toEqual(keys)
    expect(new Set(keys).size).toBe(keys.length)
    expect(desc.items.map((i) => i.callId)).toEqual(asc.items.map((i) => i.callId).reverse())
  })

  it('accepts the documented sort aliases and rejects an unknown column', async () => {
    const a = await page(s.url, token, { ...WINDOW, take: 20, sortColumn: 'start_time_dt' })
    const b = await page(s.url, token, { ...WINDOW, take: 20, sortColumn: 'callDate' })
    expect(b.items.map((i) => i.callId)).toEqual(a.items.map((i) => i.callId))
    await expectAbpValidation(await getCalls(s.url, token, { ...WINDOW, sortColumn: 'title' }), 'sortColumn')
  })

  it('returns analysis as [] unless includeAnalysis is true, then 5–15 key/friendlyName/value items', async () => {
    const without = await page(s.url, token, { ...WINDOW, take: 50 })
    expect(without.items.every((i) => Array.isArray(i.analysis) && i.analysis.length === 0)).toBe(true)
    const withA = await page(s.url, token, { ...WINDOW, take: 50, includeAnalysis: true })
    for (const item of withA.items) {
      expect(item.analysis.length).toBeGreaterThanOrEqual(5)
      expect(item.analysis.length).toBeLessThanOrEqual(15)
      for (const a of item.analysis) expect(Object.keys(a).sort()).toEqual(['friendlyName', 'key', 'value'])
      const score = item.analysis.find((a) => a.key === 'agentScore')
      expect(Number.isFinite(Number(score?.value))).toBe(true)
    }
    expect(withA.items.map((i) => i.callId)).toEqual(without.items.map((i) => i.callId))
  })

  it('rule 7: no phone number, e-mail or TCKN survives in any served title or summary', async () => {
    const everything = await all(s.url, token, { ...WINDOW, results: null, startTime: '2025-02-15T00:00:00' })
    expect(everything.items.length).toBeGreaterThan(2000)
    let masked = 0
    for (const item of everything.items) {
      const text = `${item.title} ${item.summary}`
      // Order numbers (SP-12345) and amounts (1086,50 TL) are the only digits the texts may keep.
      const rest = text.replace(/SP-\d{5}/g, '').replace(/\d{1,4},\d\d TL/g, '')
      expect(rest).not.toMatch(/\d{3,}/)
      expect(rest).not.toMatch(/\d[\d ().-]{4,}\d/)
      expect(text).not.toContain('@')
      if (text.includes('[MASKED]')) masked++
    }
    expect(masked).toBe(everything.items.length)
  })
})

describe('time zones and date formats (rule 6)', () => {
  it('reads startTime/endTime as the user’s local time, both inclusive at second precision, and writes callDate with its offset', async () => {
    const s = await start({ calls: 3000 })
    try {
      const token = (await login(s.url)).access_token
      const dump = s.admin.dump()
      const pick = dump[1234]!
      expect(pick.callDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+03:00$/)
      const local = pick.callDate.slice(0, 19)
      const sameSecond = dump.filter((d) => d.callDate === pick.callDate)
      const p = await page(s.url, token, { startTime: local, endTime: local, results: null, take: 500 })
      expect(p.totalCount).toBe(sameSecond.length)
      expect(p.items.map((i) => i.callId)).toContain(pick.callId)
      // A trailing Z is honoured as an absolute instant.
      const utc = new Date(Date.parse(pick.callDate)).toISOString().slice(0, 19) + 'Z'
      expect((await page(s.url, token, { startTime: utc, endTime: utc, results: null, take: 0 })).totalCount).toBe(sameSecond.length)
    } finally {
      await s.stop()
    }
  })

  it('follows each user’s zone across DST, and writes utc or naive dates on request', async () => {
    const config = {
      tenants: [{ name: 'ny', users: [{ username: 'nyc', email: 'nyc@x.test', password: 'pw', zone: 'America/New_York' }], calls: 3000 }]
    }
    const s = await start({ config, from: '2025-03-01T00:00:00Z', to: '2025-03-20T00:00:00Z' })
    try {
      const token = (await login(s.url, 'nyc', 'pw')).access_token
      const p = await all(s.url, token, { results: null })
      const offsets = new Set(p.items.map((i) => i.callDate.slice(19)))
      expect(offsets).toEqual(new Set(['-05:00', '-04:00']))
      const winter = await page(s.url, token, {
        startTime: '2025-03-05T09:00:00',
        endTime: '2025-03-05T09:59:59',
        results: null,
        take: 500
      })
      expect(winter.items.every((i) => i.callDate.startsWith('2025-03-05T09:') && i.callDate.endsWith('-05:00'))).toBe(true)
      expect(winter.totalCount).toBeGreaterThan(0)
    } finally {
      await s.stop()
    }
    for (const [dateFormat, pattern] of [
      ['utc', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/],
      ['naive', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/]
    ] as const) {
      const t = await start({ calls: 200, dateFormat })
      try {
        const token = (await login(t.url)).access_token
        const p = await page(t.url, token, { take: 20 })
        expect(p.items.every((i) => pattern.test(i.callDate))).toBe(true)
      } finally {
        await t.stop()
      }
    }
  })
})

describe('response envelopes for client robustness tests', () => {
  it('serves a bare array or {result, success}', async () => {
    for (const envelope of ['array', 'wrapped'] as const) {
      const s = await start({ calls: 300, envelope })
      try {
        const token = (await login(s.url)).access_token
        const body = (await (await getCalls(s.url, token, { take: 7, results: null })).json()) as unknown
        if (envelope === 'array') {
          expect(Array.isArray(body)).toBe(true)
          expect(body).toHaveLength(7)
        } else {
          expect(body).toMatchObject({ success: true, result: { totalCount: 300 } })
          expect((body as { result: { items: unknown[] } }).result.items).toHaveLength(7)
        }
      } finally {
        await s.stop()
      }
    }
  })
})
