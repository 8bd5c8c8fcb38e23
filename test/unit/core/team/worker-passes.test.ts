import { describe, expect, it } from 'vitest'
import { SyncEngine } from '../../../../src/core/sync'
import { membershipPasses, passScope } from '../../../../src/core/sync/membership-scopes'
import { scopeAt, WorkerConfig } from '../../../../src/core/team'
import { workerRateLimit } from '../../../../src/core/team/worker-config'
import { planFullPass } from '../../../../src/core/team/worker-full-pass'
import { learnsMemberships, membershipPlan, passConfig } from '../../../../src/core/team/worker-memberships'

const base = {
  server: 'https://calls.example.com',
  user: 'worker',
  zone: 'Europe/Istanbul',
  db: 'postgres://acme_writer@db.example.com/callsight',
  schema: 'acme',
  scopes: [
    { name: 'all', days: 30, analysis: true, results: 'all' },
    { name: 'complaints', days: 30, types: ['Complaint'] }
  ]
}
const DAY = 86_400_000
const NOW = Date.parse('2026-11-29T12:00:00Z')

describe('worker config: memberships, full pass, headroom', () => {
  it('defaults: memberships on (directions 1 and 2), three passes at once, a full pass a week, 20 % left for people', () => {
    const cfg = WorkerConfig.parse(base)
    expect(membershipPlan(cfg.memberships)).toEqual({
      types: [],
      directions: [
        { value: 1, name: '' },
        { value: 2, name: '' }
      ]
    })
    expect(cfg.fullPassEvery).toBe(7 * DAY)
    expect(workerRateLimit(cfg)).toEqual({ requests: 48, perSeconds: 60 })
    expect(cfg.passConcurrency).toBe(3)
    expect(WorkerConfig.parse({ ...base, passConcurrency: 1 }).passConcurrency).toBe(1)
    expect(WorkerConfig.safeParse({ ...base, passConcurrency: 0 }).success).toBe(false)
    expect(WorkerConfig.safeParse({ ...base, passConcurrency: 9 }).success).toBe(false)
    expect(learnsMemberships(cfg.scopes[0]!)).toBe(true)
    expect(learnsMemberships(cfg.scopes[1]!)).toBe(false)
  })

  it('reads types, directions with names, durations and false', () => {
    const cfg = WorkerConfig.parse({
      ...base,
      memberships: { types: ['Refund', { value: 'Complaint', description: 'Şikayet' }], directions: [1, 2, 3], names: { '1': 'Gelen' } },
      fullPassEvery: '12h',
      headroom: 0.5
    })
    expect(membershipPlan(cfg.memberships)).toEqual({
      types: [
        { value: 'Refund', description: '' },
        { value: 'Complaint', description: 'Şikayet' }
      ],
      directions: [
        { value: 1, name: 'Gelen' },
        { value: 2, name: '' },
        { value: 3, name: '' }
      ]
    })
    expect(cfg.fullPassEvery).toBe(12 * 3_600_000)
    expect(workerRateLimit({ ...cfg, rateLimit: { requests: 600, perSeconds: 60 } })).toEqual({ requests: 300, perSeconds: 60 })
    const off = WorkerConfig.parse({ ...base, memberships: false, fullPassEvery: false })
    expect(membershipPlan(off.memberships)).toBeNull()
    expect(off.fullPassEvery).toBe(false)
    expect(() => WorkerConfig.parse({ ...base, fullPassEvery: '7 days' })).toThrow(/duration/)
    expect(() => WorkerConfig.parse({ ...base, headroom: 1 })).toThrow()
  })

  it('a pass scope has the same key as the app\u2019s pass over the same range', () => {
    const cfg = WorkerConfig.parse(base)
    for (const pass of membershipPasses([{ value: 'Refund', description: '' }])) {
      const worker = scopeAt(passConfig(cfg.scopes[0]!, pass), NOW)
      expect(SyncEngine.keyOf(worker)).toBe(SyncEngine.keyOf(passScope(pass, { from: worker.from, to: worker.to })))
    }
  })
})

describe('the slow full pass plan', () => {
  const range = { from: NOW - 28 * DAY, to: NOW }
  const opts = { now: NOW, everyMs: 7 * DAY, intervalMs: DAY, lookbackMs: 2 * DAY }

  it('starts at the look-back and walks back in slices that cover the range within the period', () => {
    let stored: unknown = null
    const slices: Array<{ from: number; to: number }> = []
    for (let i = 0; i < 20; i++) {
      const p = planFullPass(stored, range, opts)
      if (p.slice === null) break
      slices.push(p.slice)
      stored = { ...p.state, cursor: p.slice.from }
    }
    expect(slices[0]!.to).toBe(NOW - 2 * DAY)
    expect(slices.at(-1)!.from).toBe(range.from)
    expect(slices.length).toBeLessThanOrEqual(7)
    for (let i = 1; i < slices.length; i++) expect(slices[i]!.to).toBe(slices[i - 1]!.from)
  })

  it('waits for the period after a pass is done, then starts again', () => {
    const done = { startedAt: NOW - 3 * DAY, cursor: range.from }
    expect(planFullPass(done, range, opts).slice).toBeNull()
    const again = planFullPass(done, range, { ...opts, now: NOW + 5 * DAY })
    expect(again.slice?.to).toBe(NOW - 2 * DAY)
    expect(again.state.startedAt).toBe(NOW + 5 * DAY)
  })

  it('a slice cut short is read again (the cursor is where it was)', () => {
    const mid = { startedAt: NOW, cursor: NOW - 10 * DAY }
    expect(planFullPass(mid, range, opts).slice).toEqual({ from: NOW - 14 * DAY, to: NOW - 10 * DAY })
  })
})
