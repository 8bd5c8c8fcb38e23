import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { remoteSearchCommand } from '../../../src/cli/commands/remote-search'
import type { Io } from '../../../src/cli/output'
import { CallsightError } from '../../../src/core/errors'
import { startService, type RunningService } from '../../../src/reference-service'

// A live search while the tenant's limit is spent by others (the team worker): the service
// answers 429, and the search waits it out with a countdown on stderr instead of failing —
// but not for ever.

const GET_CALLS = '/api/app/public-calls/get-calls'
let service: RunningService

beforeAll(async () => {
  process.env.CALLSIGHT_PASSWORD = 'demo'
  service = await startService({
    port: 0,
    calls: 200,
    seed: 5,
    from: '2026-01-05T06:00:00Z',
    to: '2026-01-05T18:00:00Z',
    tz: 'Europe/Istanbul',
    quiet: true
  })
}, 60_000)

afterAll(async () => {
  await service?.stop()
})

function io(tty: boolean): Io & { text: () => string; lines: string[] } {
  const err: string[] = []
  const out: string[] = []
  return { out: (t) => out.push(t), err: (t) => err.push(t), tty, text: () => out.join(''), lines: err }
}

// No Retry-After on these 429s: the client holds for one window of the limit, 3 s.
const argv = [
  '--server',
  '',
  '--user',
  'demo',
  '--from',
  '2026-01-05T06:00:00Z',
  '--to',
  '2026-01-05T18:00:00Z',
  '--zone',
  'UTC',
  '--rate-limit',
  '60/3',
  '--results',
  'all'
]
const args = (): string[] => argv.map((a, i) => (i === 1 ? service.url : a))

describe('remote-search meeting the tenant\u2019s limit', () => {
  it('waits the 429 out with a countdown redrawn each second on a terminal, then answers', async () => {
    service.admin.setFaults({ errorRate: 1, errorStatuses: [429], paths: [GET_CALLS] })
    service.admin.resetStats()
    const t = io(true)
    const lift = setInterval(() => {
      if ((service.admin.stats().byStatus['429'] ?? 0) >= 1) service.admin.setFaults({})
    }, 20)
    try {
      expect(await remoteSearchCommand(args(), t, new AbortController().signal)).toBe(0)
    } finally {
      clearInterval(lift)
      service.admin.setFaults({})
    }
    expect(t.text()).toMatch(/^20 call\(s\)/m)
    const shown = t.lines.filter((l) => l.includes('waiting'))
    // 3 s, 2 s, 1 s: a line redrawn in place, then cleared. A loaded machine may fire a tick
    // late (3, 3, 2) or not before the wait ends, so the test asks for a countdown, not each second.
    const seconds = shown.map((l) => Number(/waiting (\d+) s for the service's limit/.exec(l)?.[1]))
    expect(seconds[0]).toBe(3)
    expect(seconds.every((s, i) => i === 0 || s <= seconds[i - 1]!)).toBe(true)
    expect(Math.min(...seconds)).toBeLessThan(3)
    expect(shown.every((l) => l.startsWith('\r\x1b[2K'))).toBe(true)
    expect(t.lines.at(-1)).toBe('\r\x1b[2K')
  }, 60_000)

  it('without a terminal says it once per wait, and gives up after two waits with a clear error', async () => {
    service.admin.setFaults({ errorRate: 1, errorStatuses: [429], paths: [GET_CALLS] })
    service.admin.resetStats()
    const t = io(false)
    let thrown: unknown
    try {
      await remoteSearchCommand(args(), t, new AbortController().signal)
    } catch (e) {
      thrown = e
    } finally {
      service.admin.setFaults({})
    }
    expect(thrown).toBeInstanceOf(CallsightError)
    expect((thrown as CallsightError).code).toBe('RateLimited')
    expect((thrown as CallsightError).message).toMatch(/waited 2 time\(s\).*team worker/)
    expect(t.lines).toEqual(["waiting 3 s for the service's limit\n", "waiting 3 s for the service's limit\n"])
    // The third 429 ended it: no fourth request.
    expect(service.admin.stats().byStatus['429']).toBe(3)
  }, 60_000)
})
