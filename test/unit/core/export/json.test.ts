import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exportCallsWith } from '../../../../src/core/export/export-calls'
import type { CallRecord } from '../../../../src/shared/domain'
import { baseMeta, makeRecords, sourceOf, tempDir, testGuard } from './fixtures'
import { ALL_COLUMNS, isoIn } from './helpers'

/** A cached record as the JSON formats must give it back: masked strings, the zoned date added. */
function expectedJson(r: CallRecord, zone: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    callId: r.callId,
    callAt: r.callAt,
    callDate: r.callDate,
    callDateInZone: isoIn(r.callAt, zone),
    title: testGuard(r.title),
    summary: testGuard(r.summary),
    analysis: r.analysis.map((a) => ({ key: a.key, friendlyName: a.friendlyName, value: testGuard(a.value) })),
    extra: JSON.parse(JSON.stringify(r.extra).replace(/ali@example\.com/g, '[MASKED]'))
  }
  return out
}

describe('JSON and NDJSON export', () => {
  let tmp: ReturnType<typeof tempDir>
  beforeEach(() => {
    tmp = tempDir()
  })
  afterEach(() => tmp.remove())

  it('writes one JSON document with an export header and the calls as cached', async () => {
    const records = makeRecords(500)
    const file = join(tmp.dir, 'calls.json')
    const zone = 'Asia/Kathmandu'
    const result = await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'json',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone,
      meta: baseMeta,
      guard: testGuard
    })
    expect(result).toEqual({ file, count: 500, rows: 500 })
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { export: Record<string, unknown>; calls: unknown[] }
    expect(doc.export).toEqual({
      application: 'Callsight',
      appVersion: '0.1.0-test',
      exportedAt: isoIn(baseMeta.exportedAt, zone),
      zone,
      format: 'json',
      columns: ALL_COLUMNS,
      total: 500,
      query: baseMeta.query,
      scope: baseMeta.scope,
      // Given for a query selection only (search.coverage); none here.
      coverage: null
    })
    expect(doc.calls).toEqual(records.map((r) => expectedJson(r, zone)))
    // Texts are not neutralized in JSON: no spreadsheet evaluates them.
    expect(doc.calls.some((c) => (c as { title: string }).title.startsWith('='))).toBe(true)
    expect(readFileSync(file, 'utf8')).not.toContain('@example.com')
  })

  it('writes NDJSON, one call per line, with only the chosen columns', async () => {
    const records = makeRecords(120)
    const file = join(tmp.dir, 'calls.ndjson')
    await exportCallsWith({
      source: sourceOf(records),
      file,
      format: 'ndjson',
      columns: ['callId', 'summary'],
      analysisLayout: 'long',
      zone: 'UTC',
      meta: baseMeta,
      guard: testGuard
    })
    const text = readFileSync(file, 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    const lines = text.slice(0, -1).split('\n')
    expect(lines).toHaveLength(120)
    expect(lines.map((l) => JSON.parse(l))).toEqual(
      records.map((r) => {
        const full = expectedJson(r, 'UTC')
        return { callId: full.callId, summary: full.summary, extra: full.extra }
      })
    )
  })

  it('writes a valid document for an empty selection', async () => {
    const file = join(tmp.dir, 'empty.json')
    await exportCallsWith({
      source: { total: 0, analysisKeys: [], records: [] },
      file,
      format: 'json',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone: 'UTC',
      meta: { ...baseMeta, scope: undefined },
      guard: testGuard
    })
    const doc = JSON.parse(readFileSync(file, 'utf8')) as { export: { scope: unknown }; calls: unknown[] }
    expect(doc.calls).toEqual([])
    expect(doc.export.scope).toBeNull()
  })
})
