import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { Logger } from '../../../src/core/platform'
import type { Session } from '../../../src/core/session'
import { PgSyncStore } from '../../../src/core/team'
import { DEFAULT_CATALOG } from '../../../src/reference-service/config'
import { freshDatabase, FROM, membershipWorkerConfig, signedInSession, useClusterAndService, workerOf } from './helpers'

// The worker's membership passes run three at once over its one limiter: the team cache ends
// with the same memberships as one pass at a time, and a worker stopped with three passes
// running continues each from its own checkpoint to those same memberships.

const team = useClusterAndService({ calls: 6000, seed: 23 }, 'callsight-team-passes-')

interface LogLine {
  msg: string
  scope?: string
  resumed?: boolean
}

/** Keeps every line the worker logs; `onLine` sees each as it comes. */
function recordingLogger(onLine: (l: LogLine) => void = () => undefined): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = []
  return {
    lines,
    logger: {
      log: (_level, msg, fields) => {
        const line = { msg, ...fields } as LogLine
        lines.push(line)
        onLine(line)
      }
    }
  }
}

const isPass = (l: LogLine): boolean => l.scope?.includes(' · ') === true
const ENDS = new Set(['sync done', 'sync cancelled', 'sync failed', 'sync could not run'])

/** The most passes the log shows running at once: started and not yet ended. */
function peakPassesRunning(lines: readonly LogLine[]): number {
  let running = 0
  let peak = 0
  for (const l of lines) {
    if (!isPass(l)) continue
    if (l.msg === 'sync started') peak = Math.max(peak, ++running)
    else if (ENDS.has(l.msg)) running--
  }
  return peak
}

async function runWorker(
  session: Session,
  database: string,
  passConcurrency: number,
  logger: Logger,
  signal: AbortSignal = new AbortController().signal
): Promise<{ failures: number }> {
  const cfg = membershipWorkerConfig(team, database, {
    fullPassEvery: false,
    passConcurrency,
    scopes: [{ name: 'all calls', from: FROM.replace('Z', '+00:00'), results: 'all' }]
  })
  const url = team.cluster.urlFor({ database })
  const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true, maxConnections: 3 + cfg.passConcurrency })
  try {
    return await workerOf(cfg, store, session, logger).run(signal, { once: true })
  } finally {
    await store.close()
  }
}

interface Memberships {
  /** `scope key|call id`, one a membership. */
  members: string[]
  calls: string[]
  duplicates: number
}

async function memberships(url: string): Promise<Memberships> {
  const c = new pg.Client({ connectionString: url })
  await c.connect()
  try {
    const m = await c.query<{ k: string; id: string }>(
      'SELECT s.scope_key AS k, m.call_id AS id FROM acme.scope_members m JOIN acme.scopes s ON s.id = m.scope_id ORDER BY 1, 2'
    )
    const calls = await c.query<{ call_id: string }>('SELECT call_id FROM acme.calls ORDER BY 1')
    const dup = await c.query<{ n: number }>(
      `SELECT (SELECT count(*) - count(DISTINCT (scope_id, call_id)) FROM acme.scope_members)::int
            + (SELECT count(*) - count(DISTINCT call_id) FROM acme.calls)::int AS n`
    )
    return { members: m.rows.map((r) => `${r.k}|${r.id}`), calls: calls.rows.map((r) => r.call_id), duplicates: dup.rows[0]!.n }
  } finally {
    await c.end()
  }
}

describe('the worker runs membership passes at once', () => {
  let oneByOne: Memberships

  it('three at once give the same memberships as one at a time, and they did overlap', async () => {
    // A little latency per request, so a pass's pages are in flight while the others start.
    team.service.admin.setFaults({ latencyMs: 5 })
    const { session } = await signedInSession(team.service)
    const serial = recordingLogger()
    const dbA = await freshDatabase(team.cluster)
    expect((await runWorker(session, dbA, 1, serial.logger)).failures).toBe(0)
    expect(peakPassesRunning(serial.lines)).toBe(1)
    oneByOne = await memberships(team.cluster.urlFor({ database: dbA }))

    const atOnce = recordingLogger()
    const dbB = await freshDatabase(team.cluster)
    expect((await runWorker(session, dbB, 3, atOnce.logger)).failures).toBe(0)
    expect(peakPassesRunning(atOnce.lines)).toBe(3)
    const passes = DEFAULT_CATALOG.length + 4
    expect(atOnce.lines.filter((l) => isPass(l) && l.msg === 'sync done')).toHaveLength(passes)
    // Longest first: answered only and the directions start before any call type.
    expect(
      atOnce.lines
        .filter((l) => isPass(l) && l.msg === 'sync started')
        .slice(0, 3)
        .map((l) => l.scope)
        .sort()
    ).toEqual(['all calls · answered only', 'all calls · direction 1', 'all calls · direction 2'])

    const together = await memberships(team.cluster.urlFor({ database: dbB }))
    expect(oneByOne.duplicates).toBe(0)
    expect(together.duplicates).toBe(0)
    expect(oneByOne.calls).toHaveLength(team.service.admin.dump().length)
    expect(new Set(oneByOne.members.map((m) => m.split('|')[0])).size).toBe(passes + 1)
    expect(together.calls).toEqual(oneByOne.calls)
    expect(together.members).toEqual(oneByOne.members)
  }, 300_000)

  it('stopped with three passes running, resumes each to the identical memberships, no duplicates', async () => {
    expect(oneByOne).toBeDefined()
    team.service.admin.setFaults({ latencyMs: 5 })
    const { session } = await signedInSession(team.service)
    const database = await freshDatabase(team.cluster)
    const stop = new AbortController()
    let watch: NodeJS.Timeout | undefined
    let running = 0
    const first = recordingLogger((l) => {
      if (!isPass(l)) return
      if (l.msg === 'sync started') running++
      else if (ENDS.has(l.msg)) running--
      if (running < 3 || watch !== undefined) return
      // Some answers after the third pass started (work, not time): all three are mid-way.
      const at = team.service.admin.stats().requests + 6
      watch = setInterval(() => {
        if (team.service.admin.stats().requests < at) return
        clearInterval(watch)
        stop.abort()
      }, 2)
    })
    try {
      await runWorker(session, database, 3, first.logger, stop.signal)
    } finally {
      clearInterval(watch)
    }
    expect(stop.signal.aborted).toBe(true)
    const cancelled = first.lines.filter((l) => isPass(l) && l.msg === 'sync cancelled').map((l) => l.scope)
    expect(cancelled.length).toBeGreaterThanOrEqual(2)

    const second = recordingLogger()
    expect((await runWorker(session, database, 3, second.logger)).failures).toBe(0)
    const resumed = second.lines.filter((l) => isPass(l) && l.msg === 'sync started' && l.resumed === true).map((l) => l.scope)
    expect(resumed.sort()).toEqual(cancelled.sort())

    const after = await memberships(team.cluster.urlFor({ database }))
    expect(after.duplicates).toBe(0)
    expect(after.calls).toEqual(oneByOne.calls)
    expect(after.members).toEqual(oneByOne.members)
  }, 300_000)

  it('PostgreSQL restarted under three passes: one "waiting for PostgreSQL" and one "back", the passes end their work', async () => {
    expect(oneByOne).toBeDefined()
    team.service.admin.setFaults({ latencyMs: 5 })
    const { session } = await signedInSession(team.service)
    const database = await freshDatabase(team.cluster)
    let restart: Promise<number> | undefined
    let running = 0
    const log = recordingLogger((l) => {
      if (!isPass(l)) return
      if (l.msg === 'sync started') running++
      else if (ENDS.has(l.msg)) running--
      // All three passes mid-way: the server goes away under each of them at once.
      if (running === 3 && restart === undefined) restart = team.cluster.restart(2000)
    })
    const { failures } = await runWorker(session, database, 3, log.logger)
    expect(restart).toBeDefined()
    await restart
    expect(failures).toBe(0)
    expect(log.lines.filter((l) => l.msg.startsWith('waiting for PostgreSQL since '))).toHaveLength(1)
    expect(log.lines.filter((l) => l.msg === 'PostgreSQL is back')).toHaveLength(1)
    const after = await memberships(team.cluster.urlFor({ database }))
    expect(after.duplicates).toBe(0)
    expect(after.members).toEqual(oneByOne.members)
  }, 300_000)
})
