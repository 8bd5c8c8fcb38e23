import { afterEach, describe, expect, it } from 'vitest'
import type { AppErrorInfo } from '../../../../src/shared/errors'
import type { TeamPullProgress, TeamSchedule } from '../../../../src/shared/team'
import { TeamPullSchedule } from '../../../../src/core/app/team-schedule'
import { ManualClock } from '../../../../src/core/platform/manual-clock'

// The app's own pulls from the team cache, driven by the manual clock: when each starts,
// that two never overlap, the back-off while PostgreSQL cannot be reached, and what the
// renderer is told. The pull itself is the test's (its end reported as the handler does).

const MIN = 60_000

const ended = (phase: TeamPullProgress['phase'], code?: string): TeamPullProgress => ({
  runId: 'r',
  phase,
  calls: 0,
  members: 0,
  batches: 0,
  totalCalls: 0,
  cursor: 0,
  callsPerSecond: 0,
  ...(code ? { error: { code: code as AppErrorInfo['code'], message: code } } : {})
})

interface Harness {
  clock: ManualClock
  schedule: TeamPullSchedule
  /** Minutes after the start at which each pull began. */
  starts: number[]
  published: TeamSchedule[]
  settings: { every: number; account: string | null; pulledAt: number | null }
  /** What the next pulls end with, in order (then 'done'); a pending promise holds one open. */
  outcomes: Array<TeamPullProgress | Promise<TeamPullProgress>>
  running: number
  maxRunning: number
}

let open: TeamPullSchedule[] = []
afterEach(async () => {
  await Promise.all(open.map((s) => s.dispose()))
  open = []
})

function harness(start: Partial<Harness['settings']> = {}): Harness {
  const clock = new ManualClock(Date.UTC(2026, 10, 29, 9))
  const t0 = clock.now()
  const h = {
    clock,
    starts: [],
    published: [],
    settings: { every: 5, account: 'a1', pulledAt: null, ...start },
    outcomes: [],
    running: 0,
    maxRunning: 0
  } as unknown as Harness
  h.schedule = new TeamPullSchedule({
    clock,
    everyMinutes: () => h.settings.every,
    teamAccount: () => h.settings.account,
    pulledAt: () => h.settings.pulledAt,
    pull: async () => {
      if (h.running > 0) return null
      h.running++
      h.maxRunning = Math.max(h.maxRunning, h.running)
      h.starts.push((clock.now() - t0) / MIN)
      const p = await (h.outcomes.shift() ?? ended('done'))
      h.running--
      h.schedule.pullEnded(p)
      return p
    },
    onChange: (s) => h.published.push(s)
  })
  open.push(h.schedule)
  h.schedule.start()
  return h
}

describe('the team pull schedule', () => {
  it('pulls every N minutes from an interval after connecting, and says when the next one is', async () => {
    const h = harness()
    await h.clock.advance(0)
    expect(h.schedule.state()).toMatchObject({ everyMinutes: 5, lastSuccessAt: null, nextAt: h.clock.now() + 5 * MIN })
    await h.clock.advance(16 * MIN)
    expect(h.starts).toEqual([5, 10, 15])
    const s = h.schedule.state()
    expect(s.lastSuccessAt).toBe(h.clock.now() - 1 * MIN)
    expect(s.nextAt).toBe(s.lastSuccessAt! + 5 * MIN)
    // The renderer heard the same.
    expect(h.published.at(-1)).toEqual(s)
  })

  it('pulls at once when the cache was last pulled longer ago than the interval (the app restarted)', async () => {
    const clockStart = Date.UTC(2026, 10, 29, 9)
    const h = harness({ pulledAt: clockStart - 60 * MIN })
    await h.clock.advance(1000)
    expect(h.starts).toEqual([0])
  })

  it('is off at 0 and for an account without a team cache, and follows a change of either', async () => {
    const h = harness({ every: 0 })
    await h.clock.advance(30 * MIN)
    expect(h.starts).toEqual([])
    expect(h.schedule.state().nextAt).toBeNull()
    h.settings.every = 10
    await h.clock.advance(12 * MIN)
    // Seen within a minute: an interval since connecting has passed, so at once, then every 10.
    expect(h.starts).toEqual([31, 41])
    h.settings.account = null
    await h.clock.advance(60 * MIN)
    expect(h.starts).toEqual([31, 41])
    expect(h.schedule.state().nextAt).toBeNull()
  })

  it('never runs two pulls at once: a long pull holds the next until it ends, counted from its end', async () => {
    const h = harness()
    let finish: (p: TeamPullProgress) => void = () => undefined
    h.outcomes.push(new Promise((r) => (finish = r)))
    await h.clock.advance(22 * MIN)
    expect(h.starts).toEqual([5])
    finish(ended('done'))
    await h.clock.advance(4 * MIN)
    expect(h.starts).toEqual([5])
    await h.clock.advance(2 * MIN)
    expect(h.starts).toEqual([5, 27])
    expect(h.maxRunning).toBe(1)
  })

  it('a pull the user asked for counts as the scheduled one', async () => {
    const h = harness()
    await h.clock.advance(3 * MIN)
    h.schedule.pullEnded(ended('done'))
    await h.clock.advance(4 * MIN)
    expect(h.starts).toEqual([])
    await h.clock.advance(2 * MIN)
    expect(h.starts).toEqual([8])
  })

  it('waits twice as long after each pull that could not reach PostgreSQL, up to an hour, and not for a refusal', async () => {
    const h = harness()
    h.outcomes.push(...['Network', 'Network', 'Timeout', 'Network', 'Network', 'Network'].map((c) => ended('failed', c)))
    await h.clock.advance(5 * MIN + 1000)
    expect(h.schedule.state()).toMatchObject({ failures: 1, lastError: { code: 'Network' } })
    // 5, then +10, +20, +40, +60 (capped), +60, and after the success the interval again.
    await h.clock.advance(300 * MIN)
    expect(h.starts.slice(0, 8)).toEqual([5, 15, 35, 75, 135, 195, 255, 260])
    expect(h.schedule.state()).toMatchObject({ failures: 0, lastError: null })

    const r = harness()
    r.outcomes.push(ended('failed', 'InvalidCredentials'), ended('failed', 'InvalidCredentials'))
    await r.clock.advance(16 * MIN)
    expect(r.starts).toEqual([5, 10, 15])
    expect(r.schedule.state().failures).toBe(0)
  })

  it('a new active account starts from its own last pull', async () => {
    const h = harness()
    await h.clock.advance(6 * MIN)
    expect(h.starts).toEqual([5])
    h.settings.account = 'a2'
    h.settings.pulledAt = h.clock.now() - 2 * MIN
    expect(h.schedule.state()).toMatchObject({ lastSuccessAt: h.settings.pulledAt, nextAt: h.settings.pulledAt + 5 * MIN })
  })
})
