import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoDataDir, launchOnLocalResults } from '../../test/e2e/support/export-app'
import type { LaunchedApp } from '../../test/e2e/support/harness'

// An export through `callsight serve` as a user makes it: in Debian's Chromium, all results of
// a search in each format the export dialog offers (CSV, XLSX, JSON, NDJSON), timed from the click on Export to the browser's download complete
// (Playwright's download event and the file fully written), with where the time went: the
// first progress event, the last rows counted, the server's "done", the download. A benchmark,
// not a test: `npm run bench:browser` runs it and prints figures; nothing is asserted on time.
//
// CALLSIGHT_BENCH_EXPORT_CALLS: the cache's size (100,000; CALLSIGHT_BENCH_QUICK=1 makes it
// 20,000). CALLSIGHT_BENCH_EXPORT_ROUNDS: rounds (2). CALLSIGHT_BENCH_EXPORT_FORMATS: the formats,
// comma-separated (all four). Measured alternately in the same run:
// this build as users get it ("now": a CSV staged whole, then downloaded), this build with the
// CSV streamed into the download while it is written ("stream", CALLSIGHT_EXPORT_STREAM=1;
// CALLSIGHT_BENCH_EXPORT_STREAMED=0 leaves it out), and
// CALLSIGHT_BENCH_EXPORT_BEFORE: another build's CLI (out/node/cli.mjs of the code before a
// change, copied aside).

const QUICK = process.env['CALLSIGHT_BENCH_QUICK'] === '1'
const CALLS = Number(process.env['CALLSIGHT_BENCH_EXPORT_CALLS'] ?? (QUICK ? 20_000 : 100_000))
const ROUNDS = Number(process.env['CALLSIGHT_BENCH_EXPORT_ROUNDS'] ?? 2)
const BEFORE = process.env['CALLSIGHT_BENCH_EXPORT_BEFORE']
const STREAMED = process.env['CALLSIGHT_BENCH_EXPORT_STREAMED'] !== '0'
const ALL_FORMATS = ['csv', 'xlsx', 'json', 'ndjson'] as const
type Format = (typeof ALL_FORMATS)[number]
const FORMATS: Format[] = (process.env['CALLSIGHT_BENCH_EXPORT_FORMATS'] ?? ALL_FORMATS.join(','))
  .split(',')
  .map((f) => f.trim())
  .filter((f): f is Format => (ALL_FORMATS as readonly string[]).includes(f))

/** One export's milestones, in milliseconds after the click (one clock: the bench's Date.now). */
interface Timing {
  /** The first export.progress event reached the page. */
  firstEvent: number
  /**
   * The highest percentage the progress bar showed. By design it stays short of 100 while the
   * file is not whole (progress.ts), and the dialog gives way to the "done" toast once it is.
   */
  barMax: number
  /** The last "writing" event (rows counted). */
  lastWriting: number
  /** The server said "done" (the file complete on its side). */
  done: number
  /** The browser's download event. */
  downloadStarted: number
  /** The download's file fully written. */
  complete: number
  bytes: number
}

async function exportOnce(page: Page, format: Format): Promise<Timing> {
  await page.getByTestId('export-open').click()
  const dialog = page.getByTestId('export-dialog')
  await dialog.waitFor()
  await dialog.getByText(format.toUpperCase(), { exact: true }).click()
  await dialog.getByTestId('export-what-all').click()

  // The events and the bar, watched in the page on its Date.now (the same clock as the bench's).
  await page.evaluate(() => {
    const w = window as unknown as {
      __marks?: { firstEvent: number; lastWriting: number; done: number; barMax: number }
      __stop?: () => void
      api: { on(e: string, f: (p: unknown) => void): () => void }
    }
    w.__stop?.()
    const marks = { firstEvent: NaN, lastWriting: NaN, done: NaN, barMax: 0 }
    w.__marks = marks
    const off = w.api.on('export.progress', (p) => {
      const now = Date.now()
      if (Number.isNaN(marks.firstEvent)) marks.firstEvent = now
      if ((p as { phase: string }).phase === 'writing') marks.lastWriting = now
      else marks.done = now
    })
    const observer = new MutationObserver(() => {
      const bar = document.querySelector('[data-testid="export-progress"] [role="progressbar"]')
      if (bar) marks.barMax = Math.max(marks.barMax, Number(bar.getAttribute('aria-valuenow')) || 0)
    })
    observer.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true })
    w.__stop = () => {
      off()
      observer.disconnect()
    }
  })
  const downloading = page.waitForEvent('download', {
    timeout: 600_000,
    predicate: (d) => d.suggestedFilename().endsWith(`.${format}`)
  })
  const clicked = Date.now()
  await dialog.getByTestId('export-start').click()
  const download = await downloading
  const downloadStarted = Date.now() - clicked
  const path = await download.path()
  const complete = Date.now() - clicked
  const marks = await page.evaluate(() => {
    const w = window as unknown as { __marks: Record<string, number>; __stop: () => void }
    w.__stop()
    return w.__marks
  })
  const since = (at: number | undefined): number => (at === undefined ? NaN : at - clicked)
  const t = {
    firstEvent: since(marks['firstEvent']),
    lastWriting: since(marks['lastWriting']),
    done: since(marks['done']),
    barMax: marks['barMax'] ?? 0
  }
  const bytes = statSync(path).size
  await download.delete()
  return { ...t, downloadStarted, complete, bytes }
}

/** Nearest-rank percentile of a sample. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN
}

/** Median and p95 of the server's "done" and of the download complete, per build and format. */
function summary(rows: Array<[string, string, Timing]>): string {
  const keys = [...new Set(rows.map(([name, f]) => `${name}\t${f}`))]
  const s = (ms: number): string => (ms / 1000).toFixed(2)
  return keys
    .map((key) => {
      const [name, f] = key.split('\t') as [string, string]
      const ts = rows.filter(([n, g]) => n === name && g === f).map(([, , t]) => t)
      const done = ts.map((t) => t.done)
      const complete = ts.map((t) => t.complete)
      return `  ${name.padEnd(6)} ${f.padEnd(6)} ${String(ts.length).padStart(2)} ${s(percentile(done, 50)).padStart(9)} ${s(percentile(done, 95)).padStart(9)} ${s(percentile(complete, 50)).padStart(13)} ${s(percentile(complete, 95)).padStart(13)}`
    })
    .join('\n')
}

describe(`export through serve, all results of ${CALLS.toLocaleString('en')} calls`, () => {
  const apps: Array<{ name: string; app: LaunchedApp }> = []
  let dataDir: string

  beforeAll(async () => {
    dataDir = demoDataDir('callsight-export-e2e-', CALLS, { optimize: true })
    const builds: Array<[string, string | undefined, Record<string, string>]> = [['now', undefined, {}]]
    if (STREAMED) builds.unshift(['stream', undefined, { CALLSIGHT_EXPORT_STREAM: '1' }])
    if (BEFORE && existsSync(BEFORE)) builds.unshift(['before', BEFORE, {}])
    for (const [name, cli, env] of builds) {
      // Each build on its own copy of the cache: a data folder is one serve's.
      const own = join(dataDir, name)
      mkdirSync(join(own, 'accounts'), { recursive: true })
      copyFileSync(join(dataDir, 'accounts', 'demo.sqlite'), join(own, 'accounts', 'demo.sqlite'))
      const app = await launchOnLocalResults({ args: ['--demo'], dataDir: own, env, ...(cli ? { cli } : {}) })
      apps.push({ name, app })
    }
  }, 900_000)
  afterAll(async () => {
    for (const { app } of apps) await app.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('downloads each format, and reports how soon', async () => {
    expect(FORMATS.length).toBeGreaterThan(0)
    const rows: Array<[string, string, Timing]> = []
    for (let r = 0; r < ROUNDS; r++)
      for (const format of FORMATS) for (const { name, app } of apps) rows.push([name, format, await exportOnce(app.page, format)])
    const s = (ms: number): string => (ms / 1000).toFixed(2).padStart(7)
    const load = loadavg().map((l) => l.toFixed(2))
    console.log(
      `export through serve, ${CALLS.toLocaleString('en')} calls, ${ROUNDS} rounds, load ${load.join(' ')} (seconds after the click)\n` +
        `  build  format   first  last-rows  bar-max   done  dl-event  complete     MB\n` +
        rows
          .map(
            ([name, f, t]) =>
              `  ${name.padEnd(6)} ${f.padEnd(6)} ${s(t.firstEvent)} ${s(t.lastWriting).padStart(10)} ${`${t.barMax.toFixed(1)} %`.padStart(8)} ${s(t.done)} ${s(t.downloadStarted).padStart(9)} ${s(t.complete).padStart(9)} ${(t.bytes / 1e6).toFixed(1).padStart(6)}`
          )
          .join('\n') +
        `\n  build  format  n  done p50  done p95  complete p50  complete p95\n` +
        summary(rows)
    )
    for (const { app } of apps) expect(app.pageErrors).toEqual([])
  }, 1_800_000)
})
