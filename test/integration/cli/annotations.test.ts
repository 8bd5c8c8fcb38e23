import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache } from '../../../src/core/cache'
import type { CallRecord } from '../../../src/shared/domain'
import { buildCli, removeBuild } from './build-cli'
import { runCli } from './helpers'

// `callsight annotations export|import` between two real cache files, through the built CLI.

// Synced with every result: local search and export ask for every result (their default is answered only).
const FILTERS = { callTypes: [], direction: null, results: 'all' as const, hasNewRequest: null, includeAnalysis: true }
const rec = (i: number): CallRecord => ({
  callId: `call-${i}`,
  callAt: Date.UTC(2026, 2, 2, 8, i),
  callDate: '2026-03-02T11:00:00',
  title: `Arama ${i}`,
  summary: 'Fatura itirazı',
  analysis: [],
  extra: {}
})

let cli = ''
let dir = ''
let a = ''
let b = ''

function seed(file: string): CallCache {
  const cache = openCache(file)
  cache.ensureScope('all', FILTERS)
  cache.writePage({ scopeKey: 'all', records: [1, 2, 3].map(rec), includeAnalysis: true, checkpoint: null })
  // The day the scope covered, as a finished sync records it.
  cache.sync.addCoverage('all', Date.UTC(2026, 2, 2), Date.UTC(2026, 2, 3))
  return cache
}

const write = (
  cache: CallCache,
  callId: string,
  at: number,
  changes: Parameters<CallCache['review']['annotations']['write']>[1],
  author = 'ayse'
) => cache.review.annotations.write(callId, changes, { author, at, history: true })

beforeAll(async () => {
  cli = await buildCli()
  dir = mkdtempSync(join(tmpdir(), 'callsight-annotations-'))
  a = join(dir, 'a.db')
  b = join(dir, 'b.db')
  const ca = seed(a)
  const card = ca.review.scorecards.save(
    { name: 'Form', criteria: [{ id: 'q', name: 'Soru', weight: 1, scale: '1_5', critical: false }] },
    undefined,
    'ayse',
    1000
  )
  write(ca, 'call-1', 2000, {
    status: 'reviewed',
    tags: ['iade'],
    note: '=SUM(A1) aradı 0532 123 45 67',
    score: { scorecardId: card.id, version: 1, answers: { q: 5 }, total: 100, failed: false }
  })
  write(ca, 'call-2', 2000, { status: 'follow_up', note: 'eski not' })
  write(ca, 'gone-call', 2000, { tags: ['arşiv'] })
  ca.close()
  const cb = seed(b)
  // b changed call-2's note later than a did, and its status earlier.
  write(cb, 'call-2', 1500, { status: 'in_review' }, 'mehmet')
  write(cb, 'call-2', 3000, { note: 'yeni not' }, 'mehmet')
  cb.close()
}, 120_000)

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  removeBuild(cli)
})

describe('callsight annotations', () => {
  it('exports JSON with the scorecards, masked, and imports it merging last-writer-wins with conflicts reported', async () => {
    const out = join(dir, 'a.json')
    const r = await runCli(cli, ['annotations', 'export', '--db', a, '--format', 'json', '--out', out])
    expect(r.stderr).toBe('')
    expect(r.stdout).toContain('Wrote 3 annotation(s)')
    const file = JSON.parse(readFileSync(out, 'utf8')) as { scorecards: unknown[]; annotations: Array<{ callId: string; note: string }> }
    expect(file.scorecards).toHaveLength(1)
    expect(file.annotations.find((x) => x.callId === 'call-1')?.note).toBe('=SUM(A1) aradı [MASKED]')

    const imp = await runCli(cli, ['annotations', 'import', '--db', b, '--format', 'json', '--in', out, '--json'])
    expect(imp.code).toBe(0)
    const report = JSON.parse(imp.stdout) as {
      added: number
      updated: number
      unchanged: number
      conflicts: Array<{ callId: string; field: string; kept: string }>
    }
    expect(report).toMatchObject({ added: 2, updated: 1, unchanged: 0 })
    expect(report.conflicts).toEqual(
      expect.arrayContaining([
        { callId: 'call-2', field: 'status', kept: 'incoming' },
        { callId: 'call-2', field: 'note', kept: 'local' }
      ])
    )
    const cb = openCache(b)
    try {
      const c2 = cb.review.annotations.get('call-2')!
      expect(c2).toMatchObject({ status: 'follow_up', note: 'yeni not' })
      const c1 = cb.review.annotations.get('call-1')!
      expect(c1).toMatchObject({ status: 'reviewed', tags: ['iade'], author: 'ayse' })
      expect(c1.score).toMatchObject({ total: 100, version: 1 })
      expect(cb.review.scorecards.get(c1.score!.scorecardId, 1)?.name).toBe('Form')
      expect(cb.review.annotations.get('gone-call')?.callMissing).toBe(true)
    } finally {
      cb.close()
    }
    // Importing the same file again changes nothing.
    const again = JSON.parse(
      (await runCli(cli, ['annotations', 'import', '--db', b, '--format', 'json', '--in', out, '--json'])).stdout
    ) as { added: number; updated: number }
    expect(again).toMatchObject({ added: 0, updated: 0 })
  })

  it('round-trips CSV, formula triggers made inert in the file and restored on import', async () => {
    const out = join(dir, 'a.csv')
    expect((await runCli(cli, ['annotations', 'export', '--db', a, '--format', 'csv', '--out', out])).code).toBe(0)
    const text = readFileSync(out, 'utf8')
    expect(text).toContain("'=SUM(A1)")
    const c = join(dir, 'c.db')
    seed(c).close()
    const imp = await runCli(cli, ['annotations', 'import', '--db', c, '--format', 'csv', '--in', out])
    expect(imp.stdout).toContain('3 new')
    const cc = openCache(c)
    try {
      expect(cc.review.annotations.get('call-1')).toMatchObject({ note: '=SUM(A1) aradı [MASKED]', status: 'reviewed', tags: ['iade'] })
    } finally {
      cc.close()
    }
  })

  it('imports the good entries of a file and reports each refused one by its line, exit 9', async () => {
    const out = join(dir, 'tampered.json')
    expect((await runCli(cli, ['annotations', 'export', '--db', a, '--format', 'json', '--out', out])).code).toBe(0)
    const file = JSON.parse(readFileSync(out, 'utf8')) as {
      annotations: Array<{ callId: string; tags: string[]; noteAt: number }>
    }
    file.annotations.find((x) => x.callId === 'call-2')!.tags = Array.from({ length: 20_000 }, (_, i) => `t${i}`)
    file.annotations.find((x) => x.callId === 'gone-call')!.noteAt = 8_640_000_000_000
    const text = JSON.stringify(file, null, 2)
    writeFileSync(out, text)
    const d = join(dir, 'd.db')
    seed(d).close()
    const imp = await runCli(cli, ['annotations', 'import', '--db', d, '--format', 'json', '--in', out])
    expect(imp.code).toBe(9)
    expect(imp.stdout).toContain('1 new')
    expect(imp.stdout).toContain('2 refused')
    // The line an entry's "{" is on, as an editor numbers it.
    const lines = text.split('\n')
    const lineOf = (callId: string) =>
      lines
        .slice(
          0,
          lines.findIndex((l) => l.includes(`"callId": "${callId}"`))
        )
        .lastIndexOf('    {') + 1
    expect(imp.stderr).toContain(`line ${lineOf('call-2')} (call-2) not imported: tags`)
    expect(imp.stderr).toMatch(new RegExp(`line ${lineOf('gone-call')} \\(gone-call\\) not imported: noteAt: .*later than`))
  })

  it('refuses a file that is not an export, and a missing action', async () => {
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '{"format":"other"}')
    const r = await runCli(cli, ['annotations', 'import', '--db', b, '--format', 'json', '--in', bad])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('not an annotations export')
    expect((await runCli(cli, ['annotations', '--db', b])).code).toBe(2)
  })

  it('search and export take the review filters; export writes the review columns', async () => {
    const json = (r: { stdout: string }) => JSON.parse(r.stdout) as { total: number; items: Array<{ callId: string }> }
    const reviewed = await runCli(cli, ['search', '--db', a, '--results', 'all', '--status', 'reviewed', '--json'])
    expect(reviewed.stderr).toBe('')
    expect(json(reviewed).items.map((i) => i.callId)).toEqual(['call-1'])
    expect(
      json(await runCli(cli, ['search', '--db', a, '--results', 'all', '--status', 'new', '--json'])).items.map((i) => i.callId)
    ).toEqual(['call-3'])
    expect(json(await runCli(cli, ['search', '--db', a, '--results', 'all', '--note', 'ESKİ', '--json'])).total).toBe(1)
    expect(json(await runCli(cli, ['search', '--db', a, '--results', 'all', '--score', '90..', '--tag', 'iade', '--json'])).total).toBe(1)
    expect(json(await runCli(cli, ['search', '--db', a, '--results', 'all', '--tag', 'arşiv', '--json'])).total).toBe(0)
    expect((await runCli(cli, ['search', '--db', a, '--results', 'all', '--score', 'high'])).code).toBe(2)
    expect((await runCli(cli, ['search', '--db', a, '--results', 'all', '--status', 'done'])).code).toBe(2)

    const out = join(dir, 'review.csv')
    const r = await runCli(cli, [
      'export',
      '--db',
      a,
      '--results',
      'all',
      '--format',
      'csv',
      '--out',
      out,
      '--columns',
      'callId,review',
      '--has-note',
      'true'
    ])
    expect(r.stderr).toBe('')
    const lines = readFileSync(out, 'utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
    expect(lines[0]).toBe('Call ID,Review status,Tags,Note,Score,Scorecard,Reviewer,Reviewed at')
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual(['call-2', 'call-1'])
  }, 120_000) // nine CLI processes, one after another: slow on a loaded machine

  it('search takes --service-dropped: the annotated calls the service no longer returns, or none of them', async () => {
    const ca = openCache(a)
    try {
      // A whole pass over the day that served call-1 and call-3 only: call-2 is marked.
      expect(
        ca.review.annotations.markServiceDropped('all', Date.UTC(2026, 2, 2), Date.UTC(2026, 2, 3), new Set(['call-1', 'call-3']), 5_000)
      ).toEqual(['call-2'])
    } finally {
      ca.close()
    }
    const ids = async (flag: string) =>
      (
        JSON.parse((await runCli(cli, ['search', '--db', a, '--results', 'all', '--service-dropped', flag, '--json'])).stdout) as {
          items: Array<{ callId: string }>
        }
      ).items.map((i) => i.callId)
    expect(await ids('true')).toEqual(['call-2'])
    expect(await ids('false')).toEqual(['call-3', 'call-1'])
    const bad = await runCli(cli, ['search', '--db', a, '--results', 'all', '--service-dropped', 'maybe'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--service-dropped')
  }, 60_000)
})
