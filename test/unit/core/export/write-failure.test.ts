import type { WriteStream } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeAtomically } from '../../../../src/core/export/atomic-file'
import { writeCsv } from '../../../../src/core/export/csv-writer'
import { writeJson } from '../../../../src/core/export/json-writer'
import { ProgressThrottle } from '../../../../src/core/export/progress'
import { headerLabels } from '../../../../src/core/export/header-labels'
import { planTabular } from '../../../../src/core/export/tabular'
import { TextGuard } from '../../../../src/core/export/text-guard'
import type { WriteResult } from '../../../../src/core/export/types'
import { writeXlsx } from '../../../../src/core/export/xlsx-writer'
import { ZoneClock } from '../../../../src/core/export/zoned-time'
import type { CallRecord } from '../../../../src/shared/domain'
import { ANALYSIS_KEYS, makeRecord, rng, tempDir, testGuard } from './fixtures'
import { ALL_COLUMNS } from './helpers'

type Writer = (out: WriteStream, records: Iterable<CallRecord>) => Promise<WriteResult>

const text = new TextGuard(testGuard)
const clock = new ZoneClock('Europe/Istanbul')
const progress = (): ProgressThrottle => new ProgressThrottle(0, undefined)
const plan = planTabular({
  columns: ALL_COLUMNS,
  layout: 'wide',
  analysisKeys: [...ANALYSIS_KEYS],
  zone: clock.name,
  text,
  labels: headerLabels('en')
})

const WRITERS: Array<[string, Writer]> = [
  ['csv', (out, records) => writeCsv({ out, records, plan, clock, progress: progress(), signal: undefined })],
  [
    'xlsx',
    (out, records) =>
      writeXlsx({ out, records, plan, clock, about: [], progress: progress(), signal: undefined, labels: headerLabels('en') })
  ],
  [
    'json',
    (out, records) =>
      writeJson({
        out,
        ndjson: false,
        records,
        columns: ALL_COLUMNS,
        header: {},
        text,
        clock,
        progress: progress(),
        signal: undefined,
        labels: headerLabels('en')
      })
  ]
]

/** The disk fills up after `after` calls: the file stream fails the way fs reports ENOSPC. */
function* fillingUp(out: () => WriteStream, after: number): Generator<CallRecord> {
  const random = rng(5)
  for (let i = 0; i < 20_000; i++) {
    if (i === after) out().destroy(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }))
    yield makeRecord(i, random)
  }
}

describe('a write that fails half way', () => {
  let tmp: ReturnType<typeof tempDir>
  beforeEach(() => {
    tmp = tempDir()
  })
  afterEach(() => tmp.remove())

  it.each(WRITERS)('%s: says the disk is full, leaves no file and does not hang', async (_name, writer) => {
    let stream: WriteStream | undefined
    const run = writeAtomically(join(tmp.dir, 'out'), (out) => {
      stream = out
      return writer(
        out,
        fillingUp(() => stream!, 3_000)
      )
    })
    await expect(run).rejects.toMatchObject({ code: 'Storage', message: expect.stringContaining('not enough space on the disk') })
    expect(tmp.files()).toEqual([])
  })
})
