import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exportCallsWith } from '../../../../src/core/export/export-calls'
import type { ExportSource } from '../../../../src/core/export/types'
import type { CallRecord, ExportFormat } from '../../../../src/shared/domain'
import { baseMeta, makeRecord, rng, tempDir, testGuard, ANALYSIS_KEYS } from './fixtures'
import { ALL_COLUMNS } from './helpers'

const FORMATS: ExportFormat[] = ['csv', 'xlsx', 'json', 'ndjson']

/** A lazily generated source, like a SQLite statement: `hook` runs before record n is handed out. */
function generated(total: number, hook?: (n: number) => void): ExportSource & { closed: () => boolean; handedOut: () => number } {
  let closed = false
  let n = 0
  function* records(): Generator<CallRecord> {
    const random = rng(3)
    try {
      for (; n < total; n++) {
        hook?.(n)
        yield makeRecord(n, random)
      }
    } finally {
      closed = true
    }
  }
  return { total, analysisKeys: [...ANALYSIS_KEYS], records: records(), closed: () => closed, handedOut: () => n }
}

const options = (source: ExportSource, file: string, format: ExportFormat) => ({
  source,
  file,
  format,
  columns: ALL_COLUMNS,
  analysisLayout: 'wide' as const,
  zone: 'Europe/Istanbul',
  meta: baseMeta,
  guard: testGuard
})

describe('no partial files', () => {
  let tmp: ReturnType<typeof tempDir>
  beforeEach(() => {
    tmp = tempDir()
  })
  afterEach(() => tmp.remove())

  it.each(FORMATS)('a cancel in the middle of a %s export leaves no file and no temporary file', async (format) => {
    const controller = new AbortController()
    const source = generated(50_000, (n) => {
      if (n === 2_000) controller.abort()
    })
    const progress: number[] = []
    const run = exportCallsWith({
      ...options(source, join(tmp.dir, `out.${format}`), format),
      signal: controller.signal,
      onProgress: (p) => progress.push(p.written)
    })
    await expect(run).rejects.toMatchObject({ name: 'CallsightError', code: 'Cancelled' })
    expect(tmp.files()).toEqual([])
    expect(source.closed()).toBe(true)
    // Stopped within a batch of the cancel, not after reading everything.
    expect(source.handedOut()).toBeLessThan(2_500)
    expect(progress[0]).toBe(0)
  })

  it('an export cancelled before it starts writes nothing', async () => {
    const controller = new AbortController()
    controller.abort()
    const run = exportCallsWith({ ...options(generated(10), join(tmp.dir, 'out.csv'), 'csv'), signal: controller.signal })
    await expect(run).rejects.toMatchObject({ code: 'Cancelled' })
    expect(tmp.files()).toEqual([])
  })

  it.each(FORMATS)('a source that fails half way through a %s export leaves no file', async (format) => {
    const source = generated(5_000, (n) => {
      if (n === 1_234) throw new Error('SQLITE_CORRUPT: database disk image is malformed')
    })
    const run = exportCallsWith(options(source, join(tmp.dir, `out.${format}`), format))
    await expect(run).rejects.toMatchObject({ code: 'Storage', message: expect.stringContaining('could not be read') })
    expect(tmp.files()).toEqual([])
  })

  it('a write that fails at the end (the name is taken by a folder) leaves the folder alone and no temporary file', async () => {
    mkdirSync(join(tmp.dir, 'taken.csv'))
    writeFileSync(join(tmp.dir, 'taken.csv', 'keep.txt'), 'x')
    const run = exportCallsWith(options(generated(3_000), join(tmp.dir, 'taken.csv'), 'csv'))
    await expect(run).rejects.toMatchObject({ code: 'Storage', message: expect.stringContaining('No file was written') })
    expect(tmp.files()).toEqual(['taken.csv'])
  })

  it('a CSV whose metadata sidecar cannot be written is removed too, so no CSV stands without its coverage', async () => {
    mkdirSync(join(tmp.dir, 'calls.csv.meta.json'))
    const run = exportCallsWith(options(generated(300), join(tmp.dir, 'calls.csv'), 'csv'))
    await expect(run).rejects.toMatchObject({ code: 'Storage' })
    expect(tmp.files()).toEqual(['calls.csv.meta.json'])
  })

  it('a folder that does not exist fails with a Storage error before reading any call', async () => {
    const source = generated(100)
    const run = exportCallsWith(options(source, join(tmp.dir, 'missing', 'out.xlsx'), 'xlsx'))
    await expect(run).rejects.toMatchObject({ code: 'Storage', message: expect.stringContaining('the folder does not exist') })
    expect(source.handedOut()).toBe(0)
    expect(tmp.files()).toEqual([])
  })

  it('replaces an existing file only once the new one is complete', async () => {
    const file = join(tmp.dir, 'calls.json')
    writeFileSync(file, 'old')
    const controller = new AbortController()
    const source = generated(10_000, (n) => n === 500 && controller.abort())
    await expect(exportCallsWith({ ...options(source, file, 'json'), signal: controller.signal })).rejects.toMatchObject({
      code: 'Cancelled'
    })
    expect(tmp.files()).toEqual(['calls.json'])
    expect(readFileSync(file, 'utf8')).toBe('old')
  })

  it('rejects invalid settings with the fields named', async () => {
    const run = exportCallsWith({ ...options(generated(1), join(tmp.dir, 'x.csv'), 'csv'), zone: 'Nowhere/City', columns: [] })
    await expect(run).rejects.toMatchObject({
      code: 'InvalidInput',
      fields: expect.arrayContaining([expect.objectContaining({ members: ['zone'] }), expect.objectContaining({ members: ['columns'] })])
    })
    expect(tmp.files()).toEqual([])
  })
})

describe('progress', () => {
  let tmp: ReturnType<typeof tempDir>
  beforeEach(() => {
    tmp = tempDir()
  })
  afterEach(() => tmp.remove())

  it('reports from 0 to the total, at most about ten times a second', async () => {
    const events: Array<{ written: number; total: number; at: number }> = []
    const started = performance.now()
    await exportCallsWith({
      ...options(generated(20_000), join(tmp.dir, 'p.csv'), 'csv'),
      onProgress: (p) => events.push({ ...p, at: performance.now() })
    })
    const elapsed = performance.now() - started
    expect(events[0]).toMatchObject({ written: 0, total: 20_000 })
    expect(events.at(-1)).toMatchObject({ written: 20_000, total: 20_000 })
    expect(events.length).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 2)
    for (let i = 1; i < events.length; i++) expect(events[i]!.written).toBeGreaterThanOrEqual(events[i - 1]!.written)
    for (let i = 2; i < events.length - 1; i++) expect(events[i]!.at - events[i - 1]!.at).toBeGreaterThanOrEqual(99)
  })

  it.each(FORMATS)('reaches its total only once the %s file is complete, and then once', async (format) => {
    const file = join(tmp.dir, `whole.${format}`)
    const seen: Array<{ written: number; total: number; fileThere: boolean; size: number }> = []
    await exportCallsWith({
      ...options(generated(3_000), file, format),
      sidecar: false,
      onProgress: (p) => seen.push({ ...p, fileThere: existsSync(file), size: existsSync(file) ? statSync(file).size : -1 })
    })
    const complete = seen.filter((p) => p.written >= p.total)
    // Records read are not yet the file: a workbook still zips, the file is flushed and renamed.
    expect(complete).toEqual([{ written: 3_000, total: 3_000, fileThere: true, size: statSync(file).size }])
    expect(seen.at(-1)).toBe(seen.find((p) => p.written >= p.total))
  })
})
