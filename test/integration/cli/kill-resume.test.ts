import type { ChildProcess } from 'node:child_process'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { decodeList } from '../../../src/core/cache/analysis-lists'
import { budget } from '../../support/budget'
import { prng } from '../../support/prng'
import { runCli, spawnCli, syncArgs, useCliAndService } from './helpers'

const FROM = '2026-02-02T06:00:00Z'
const TO = '2026-02-02T20:00:00Z'

const env = useCliAndService(
  {
    calls: 10_000,
    seed: 5,
    from: FROM,
    to: TO,
    tz: 'Europe/Istanbul',
    rateLimit: { requests: 600, perSeconds: 1 },
    denseSeconds: [{ at: '2026-02-02T12:00:00Z', count: 800 }]
  },
  'callsight-cli-kill-'
)

/**
 * Signals the child (SIGKILL unless told) when `--verbose` logs the answer to its `pages`-th
 * page request (the headers are in; the body is still to be read and stored, the page before
 * it perhaps still being written).
 */
function killAtPage(child: ChildProcess, pages: number, signal: NodeJS.Signals = 'SIGKILL'): void {
  let pending = ''
  let seen = 0
  const onData = (d: Buffer): void => {
    const lines = (pending + d.toString()).split('\n')
    pending = lines.pop()!
    seen += lines.filter((l) => l.includes('calls: HTTP 200')).length
    if (seen < pages) return
    child.stderr!.off('data', onData)
    child.kill(signal)
  }
  child.stderr!.on('data', onData)
}

describe('callsight sync killed with SIGKILL at 20 random moments', () => {
  // 22 CLI processes (1-1.5 s each to start, quiet) and a sync of 10,800 calls: 30-40 s quiet,
  // 82 s at load 13 against the 90 s limit it had.
  it('resumes each time and ends with exactly the service set, no duplicates, integrity ok', budget(30_000), async () => {
    const db = join(env.dir, 'kill.db')
    const args = syncArgs(
      { server: env.service.url, db, from: FROM, to: '2026-02-02T20:00:01Z', rateLimit: '600/1' },
      '--mode',
      'full',
      '--json',
      '--verbose'
    )
    // Ctrl-C first: a clean cancel, exit 130, the run recorded as cancelled, the checkpoint kept.
    {
      const { child, done } = spawnCli(env.cli, args)
      // At its second page: work, not a timer, decides when (a fast machine could finish first).
      killAtPage(child, 2, 'SIGINT')
      const r = await done
      expect(r.code, r.stderr).toBe(130)
      const last = JSON.parse(r.stdout.trim().split('\n').pop()!) as { phase: string; stored: number }
      expect(last.phase).toBe('cancelled')
      const conn = new Database(db, { readonly: true })
      try {
        expect(conn.prepare('SELECT outcome FROM sync_runs').pluck().all()).toEqual(['cancelled'])
        expect(conn.prepare('SELECT checkpoint FROM sync_scopes').pluck().get()).not.toBeNull()
        expect(conn.prepare('SELECT count(*) FROM calls').pluck().get()).toBe(last.stored)
      } finally {
        conn.close()
      }
    }
    let kills = 0
    let finishedEarly = 0
    // Seeded: a failure names kill points that a re-run repeats.
    const random = prng(20)
    for (let i = 0; i < 20; i++) {
      const { child, done } = spawnCli(env.cli, args)
      // Each run is killed at its 2nd to 4th page: an amount of work, not of time, so a loaded
      // machine kills at the same points as a quiet one and leaves the last run the same work.
      // The child goes on until the signal lands: where in a page's read or write it dies varies.
      killAtPage(child, 2 + Math.floor(random() * 3))
      const r = await done
      if (r.signal === 'SIGKILL') kills++
      else {
        expect(r.code, r.stderr).toBe(0)
        finishedEarly++
      }
    }
    expect(kills).toBeGreaterThanOrEqual(15)
    const last = await runCli(env.cli, args)
    expect(last.code, last.stderr).toBe(0)
    const final = JSON.parse(last.stdout.trim().split('\n').pop()!) as { phase: string }
    expect(final.phase).toBe('done')

    const dump = env.service.admin.dump()
    const want = new Set(dump.map((d) => d.callId))
    const conn = new Database(db, { readonly: true })
    try {
      expect(conn.pragma('integrity_check', { simple: true })).toBe('ok')
      const ids = conn.prepare('SELECT call_id FROM calls').pluck().all() as string[]
      expect(ids.length).toBe(want.size)
      expect(new Set(ids)).toEqual(want)
      const members = conn.prepare('SELECT count(*) FROM scope_members').pluck().get() as number
      expect(members).toBe(want.size)
      const interrupted = conn.prepare("SELECT count(*) FROM sync_runs WHERE outcome = 'interrupted'").pluck().get() as number
      expect(interrupted).toBeGreaterThanOrEqual(15)
      const lists = conn.prepare('SELECT items FROM analysis_lists').pluck().all() as string[]
      const items = lists.reduce((n, l) => n + decodeList(l).length, 0)
      expect(items).toBe(dump.reduce((n, d) => n + d.analysis.length, 0))
    } finally {
      conn.close()
    }
    expect(finishedEarly).toBeLessThanOrEqual(5)
  })
})
