import { createReadStream } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'csv-parse'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exportCallsWith } from '../../../../src/core/export/export-calls'
import type { CallRecord } from '../../../../src/shared/domain'
import { budget } from '../../../support/budget'
import { ANALYSIS_KEYS, baseMeta, expectedText, makeRecord, rng, tempDir, testGuard } from './fixtures'
import { ALL_COLUMNS, expectedId, expectedValue, isoIn } from './helpers'

const CALLS = 100_000

/** The same calls every time it is called, made one at a time like rows from SQLite. */
function* calls(): Generator<CallRecord> {
  const random = rng(11)
  for (let i = 0; i < CALLS; i++) yield makeRecord(i, random)
}

describe('100,000 calls', () => {
  let tmp: ReturnType<typeof tempDir>
  beforeEach(() => {
    tmp = tempDir()
  })
  afterEach(() => tmp.remove())

  // 100,000 rows written and read back: about 10 s quiet, past 30 s at load 13.
  it('round-trip through CSV, row for row', budget(10_000), async () => {
    const file = join(tmp.dir, 'big.csv')
    const zone = 'Europe/Istanbul'
    const result = await exportCallsWith({
      source: { total: CALLS, analysisKeys: [...ANALYSIS_KEYS], records: calls() },
      file,
      format: 'csv',
      columns: ALL_COLUMNS,
      analysisLayout: 'wide',
      zone,
      meta: baseMeta,
      guard: testGuard
    })
    expect(result).toMatchObject({ count: CALLS, rows: CALLS })

    const expected = calls()
    let line = 0
    let mismatches = 0
    for await (const row of createReadStream(file).pipe(parse({ bom: true })) as AsyncIterable<string[]>) {
      line += 1
      if (line === 1) continue
      const r = expected.next().value as CallRecord
      const want = [
        expectedId(r.callId),
        isoIn(r.callAt, zone),
        expectedText(r.title),
        expectedText(r.summary),
        ...ANALYSIS_KEYS.map(({ key }) => {
          const item = r.analysis.find((a) => a.key === key)
          return item === undefined ? '' : expectedValue(item.value).text
        })
      ]
      // One expect per row would dominate the run time; count and show the first difference.
      if (row.join('\u0001') !== want.join('\u0001')) {
        if (mismatches === 0) expect(row).toEqual(want)
        mismatches += 1
      }
    }
    expect(mismatches).toBe(0)
    expect(line).toBe(CALLS + 1)
    expect(expected.next().done).toBe(true)
  })
})
