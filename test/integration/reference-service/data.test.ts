import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DumpRecord, RunningService } from '../../../src/reference-service'
import { all, login, page, start } from './helpers'

describe('the seeded generator', () => {
  let s: RunningService
  let dump: DumpRecord[]
  beforeAll(async () => {
    s = await start({ calls: 8000, denseSeconds: [{ at: '2025-02-03T09:15:00Z', count: 400 }] })
    dump = s.admin.dump()
  })
  afterAll(() => s.stop())

  it('is deterministic for a seed and differs for another seed', async () => {
    const again = await start({ calls: 8000, denseSeconds: [{ at: '2025-02-03T09:15:00Z', count: 400 }] })
    const other = await start({ calls: 8000, seed: 8 })
    try {
      expect(again.admin.dump()).toEqual(dump)
      expect(other.admin.dump().slice(0, 50)).not.toEqual(dump.slice(0, 50))
    } finally {
      await again.stop()
      await other.stop()
    }
  })

  it('makes N calls plus the dense seconds, inside the range, sorted by time then callId', () => {
    expect(dump).toHaveLength(8400)
    const t = dump.map((d) => Date.parse(d.callDate))
    expect(Math.min(...t)).toBeGreaterThanOrEqual(Date.parse('2025-01-01T00:00:00Z'))
    expect(Math.max(...t)).toBeLessThan(Date.parse('2025-03-01T00:00:00Z'))
    for (let i = 1; i < dump.length; i++) {
      expect(t[i]! > t[i - 1]! || (t[i] === t[i - 1] && dump[i]!.callId > dump[i - 1]!.callId)).toBe(true)
    }
    expect(dump.filter((d) => d.callDate === '2025-02-03T12:15:00+03:00').length).toBeGreaterThanOrEqual(400)
  })

  it('clusters realistically: office hours and weekdays are busier, and some seconds hold many calls', () => {
    const byHour = new Array<number>(24).fill(0)
    let weekday = 0
    let weekend = 0
    const perSecond = new Map<string, number>()
    for (const d of dump) {
      const local = new Date(d.callDate.slice(0, 19) + 'Z')
      byHour[local.getUTCHours()]!++
      if ([0, 6].includes(local.getUTCDay())) weekend++
      else weekday++
      perSecond.set(d.callDate, (perSecond.get(d.callDate) ?? 0) + 1)
    }
    expect(byHour[11]!).toBeGreaterThan(byHour[3]! * 10)
    expect(weekday / 5).toBeGreaterThan((weekend / 2) * 1.5)
    expect([...perSecond.values()].filter((n) => n >= 5).length).toBeGreaterThan(3)
  })

  it('writes Turkish and English texts with Turkish letters, and uses every kind of attribute', () => {
    const text = dump.map((d) => `${d.title} ${d.summary}`).join('\n')
    for (const word of ['şikayet', 'İPTAL', 'İstanbul', 'ışık', 'fatura', 'iade', 'complaint']) expect(text).toContain(word)
    for (const ch of ['İ', 'ı', 'ş', 'ğ', 'ç', 'ö', 'ü']) expect(text).toContain(ch)
    expect(new Set(dump.map((d) => d.direction))).toEqual(new Set([1, 2, 3]))
    expect(new Set(dump.map((d) => d.result))).toEqual(new Set([1, 2, 3, 4, 5]))
    expect(new Set(dump.map((d) => d.hasNewRequest))).toEqual(new Set([true, false]))
    expect(new Set(dump.map((d) => d.type)).size).toBe(10)
    expect(dump.filter((d) => d.result === 1).length / dump.length).toBeGreaterThan(0.6)
  })

  it('gives each call 5–15 analysis items, numeric where it makes sense', () => {
    for (const d of dump.slice(0, 500)) {
      expect(d.analysis.length).toBeGreaterThanOrEqual(5)
      expect(d.analysis.length).toBeLessThanOrEqual(15)
      for (const a of d.analysis) {
        if (['silenceRatio', 'talkRatio', 'sentimentScore', 'churnRisk', 'crossTalkRatio'].includes(a.key))
          expect(a.value).toMatch(/^-?\d\.\d\d$/)
        if (['agentScore', 'customerEffort', 'holdTimeSeconds'].includes(a.key)) expect(a.value).toMatch(/^\d+$/)
      }
    }
    expect(new Set(dump.flatMap((d) => d.analysis.map((a) => a.key))).size).toBe(16)
  })
})

describe('data changes while running', () => {
  it('adds calls after the existing ones, visible to the next query', async () => {
    const s = await start({ calls: 1000, from: '2025-01-01T00:00:00Z', to: '2025-01-10T00:00:00Z' })
    try {
      const token = (await login(s.url)).access_token
      const before = await page(s.url, token, { results: null, take: 0 })
      expect(before.totalCount).toBe(1000)
      const lastBefore = s.admin.dump().at(-1)!
      expect(s.admin.addCalls(250)).toBe(1250)
      const dump = s.admin.dump()
      const added = dump.slice(1000)
      expect(added.every((d) => Date.parse(d.callDate) > Date.parse(lastBefore.callDate))).toBe(true)
      expect((await page(s.url, token, { results: null, take: 0 })).totalCount).toBe(1250)
      expect(s.admin.addCalls(100, { from: '2025-01-05T00:00:00Z', to: '2025-01-05T01:00:00Z' })).toBe(1350)
      const window = await page(s.url, token, { startTime: '2025-01-05T03:00:00', endTime: '2025-01-05T03:59:59', results: null, take: 0 })
      expect(window.totalCount).toBeGreaterThanOrEqual(100)
    } finally {
      await s.stop()
    }
  })

  it('updates summary and analysis of existing calls (late analysis) without moving them', async () => {
    const s = await start({ calls: 500 })
    try {
      const token = (await login(s.url)).access_token
      const before = new Map(s.admin.dump().map((d) => [d.callId, d]))
      const ids = s.admin.updateCalls(20)
      expect(new Set(ids).size).toBe(20)
      const after = await all(s.url, token, { results: null, includeAnalysis: false })
      const byId = new Map(after.items.map((i) => [i.callId, i]))
      for (const id of ids) {
        const old = before.get(id)!
        const now = byId.get(id)!
        expect(now.callDate).toBe(old.callDate)
        expect(now.title).toBe(old.title)
        expect(now.summary).not.toBe(old.summary)
      }
      const untouched = [...before.keys()].find((id) => !ids.includes(id))!
      expect(byId.get(untouched)!.summary).toBe(before.get(untouched)!.summary)
    } finally {
      await s.stop()
    }
  })
})
