import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { parse } from 'csv-parse/sync'
import ExcelJS from 'exceljs'
import type { Download } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache } from '../../src/core/cache'
import { exportCalls } from '../../src/core/export'
import { reviewLookup } from '../../src/core/review/review-service'
import { createSearch } from '../../src/core/search'
import type { ExportRequest } from '../../src/shared/domain'
import { demoDataDir, launchOnLocalResults } from './support/export-app'
import type { LaunchedApp } from './support/harness'

const run = promisify(execFile)

// A CSV export in the browser tab streamed (serve with CALLSIGHT_EXPORT_STREAM=1; staged is the
// default): the browser's download starts with the export and receives the file while it is written. What it saves is byte for byte the file the
// same export writes to disk, and LibreOffice opens it with the same cells; a cancelled
// export never leaves a completed download.

const CALLS = 6_000

describe('a streamed CSV download in the browser tab', () => {
  let app: LaunchedApp
  let dataDir: string
  let work: string

  beforeAll(async () => {
    dataDir = demoDataDir('callsight-export-stream-e2e-', CALLS)
    work = mkdtempSync(join(tmpdir(), 'callsight-export-stream-work-'))
    app = await launchOnLocalResults({ args: ['--demo'], dataDir, env: { CALLSIGHT_EXPORT_STREAM: '1' } })
  }, 180_000)
  afterAll(async () => {
    await app?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
    if (work) rmSync(work, { recursive: true, force: true })
  })

  /** Opens the dialog on CSV, all results; returns what export.start is sent, once it is. */
  async function openCsvExport(): Promise<{ request: Promise<ExportRequest> }> {
    const { page } = app
    await page.getByTestId('export-open').click()
    const dialog = page.getByTestId('export-dialog')
    await dialog.getByText('CSV', { exact: true }).click()
    await dialog.getByTestId('export-what-all').click()
    const request = page
      .waitForRequest((r) => r.url().endsWith('/invoke/export.start'), { timeout: 60_000 })
      .then((r) => r.postDataJSON() as ExportRequest)
    return { request }
  }

  it('saves the bytes of the file export, which LibreOffice opens with the same cells', async () => {
    const { page } = app
    // The order the page sees: the download is asked for before the export is done. Watched
    // from before the dialog opens, so this listener hears "done" before the dialog acts on it.
    await page.evaluate(() => {
      const w = window as unknown as {
        __order: string[]
        __restore: () => void
        api: { on(e: string, f: (p: { phase: string }) => void): () => void }
      }
      const order: string[] = []
      w.__order = order
      const click = HTMLAnchorElement.prototype.click
      HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
        if (this.href.includes('/downloads/')) order.push('download')
        click.call(this)
      }
      const off = w.api.on('export.progress', (p) => {
        if (p.phase !== 'writing') order.push(p.phase)
      })
      w.__restore = () => {
        HTMLAnchorElement.prototype.click = click
        off()
      }
    })
    const { request } = await openCsvExport()
    const downloading = page.waitForEvent('download', { timeout: 120_000 })
    await page.getByTestId('export-dialog').getByTestId('export-start').click()
    const download: Download = await downloading
    const saved = await download.path()
    expect(await download.failure()).toBeNull()
    // "done" closes the dialog; by then the download is whole.
    await page.getByTestId('export-dialog').waitFor({ state: 'hidden', timeout: 120_000 })
    const req = await request
    expect(req.format).toBe('csv')
    const order = await page.evaluate(() => {
      const w = window as unknown as { __order: string[]; __restore: () => void }
      w.__restore()
      return w.__order
    })
    expect(order).toEqual(['download', 'done'])

    // The same export, written to a file by the core from the same cache.
    const cache = openCache(join(dataDir, 'accounts', 'demo.sqlite'), { readonly: true })
    const file = join(work, 'file-export.csv')
    try {
      const source = { ...createSearch(cache).iterate(req.selection), review: reviewLookup(cache) }
      expect(source.total).toBe(CALLS)
      await exportCalls({
        source,
        file,
        format: 'csv',
        columns: req.columns,
        ...(req.extraFields ? { extraFields: req.extraFields } : {}),
        analysisLayout: req.analysisLayout,
        headerLanguage: req.headerLanguage,
        ...(req.csvDialect ? { csvDialect: req.csvDialect } : {}),
        sidecar: false,
        zone: req.zone!,
        meta: { query: req.selection, appVersion: 'test', exportedAt: Date.now() }
      })
    } finally {
      cache.close()
    }
    const got = readFileSync(saved)
    const expected = readFileSync(file)
    expect(got.length).toBe(expected.length)
    expect(got.equals(expected)).toBe(true)

    // Calc's CSV import with the export's separator, UTF-8, from row 1.
    const separator = req.csvDialect === 'semicolon' ? 59 : 44
    const csv = join(work, 'streamed.csv')
    await download.saveAs(csv)
    const profile = pathToFileURL(join(work, 'lo-profile')).href
    await run(
      'soffice',
      [
        `-env:UserInstallation=${profile}`,
        '--headless',
        `--infilter=CSV:${separator},34,76,1`,
        '--convert-to',
        'xlsx',
        '--outdir',
        work,
        csv
      ],
      { timeout: 180_000 }
    )
    const book = new ExcelJS.Workbook()
    await book.xlsx.readFile(join(work, 'streamed.xlsx'))
    const sheet = book.worksheets[0]!
    const rows = parse(got.toString('utf8').replace(/^\uFEFF/, ''), {
      delimiter: separator === 59 ? ';' : ',',
      relax_column_count: true
    }) as string[][]
    expect(sheet.actualRowCount).toBe(rows.length)
    expect(rows.length).toBe(CALLS + 1)
    const text = (v: ExcelJS.CellValue): string =>
      v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)
    // The header and every call's first column (its ID), cell for cell; text cells as written.
    expect((sheet.getRow(1).values as ExcelJS.CellValue[]).slice(1).map(text)).toEqual(rows[0])
    for (let r = 0; r < rows.length; r++) expect(text(sheet.getCell(r + 1, 1).value)).toBe(rows[r]![0])
    const titleColumn = rows[0]!.findIndex((h) => /title|başlık/i.test(h))
    expect(titleColumn).toBeGreaterThanOrEqual(0)
    for (let r = 1; r < rows.length; r += 97) expect(text(sheet.getCell(r + 1, titleColumn + 1).value)).toBe(rows[r]![titleColumn])
  }, 400_000)

  it('leaves no completed download when the export is cancelled', async () => {
    const { page } = app
    // The page's click on the download is held until the export is cancelled, so the cancel
    // lands, every run, while the file is not complete (a cut-off response mid-way is
    // test/integration/web/stream-download.test.ts).
    await page.evaluate(() => {
      const w = window as unknown as { __held: HTMLAnchorElement[]; __click: () => void }
      const click = HTMLAnchorElement.prototype.click
      w.__held = []
      HTMLAnchorElement.prototype.click = function (this: HTMLAnchorElement) {
        if (this.href.includes('/downloads/')) w.__held.push(this)
        else click.call(this)
      }
      w.__click = () => {
        HTMLAnchorElement.prototype.click = click
        for (const a of w.__held) {
          document.body.append(a)
          click.call(a)
          a.remove()
        }
      }
    })
    await openCsvExport()
    const downloads: Download[] = []
    page.on('download', (d) => downloads.push(d))
    const ended = page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          const w = window as unknown as { api: { on(e: string, f: (p: { phase: string }) => void): () => void } }
          const off = w.api.on('export.progress', (p) => {
            if (p.phase !== 'writing') {
              off()
              resolve(p.phase)
            }
          })
        })
    )
    await page.getByTestId('export-dialog').getByTestId('export-start').click()
    await page.waitForFunction(() => (window as unknown as { __held: unknown[] }).__held.length === 1)
    await page.getByTestId('export-cancel').click()
    expect(await ended).toBe('cancelled')
    // The page says what the browser shows is not a whole file.
    await page
      .getByText(/that file is incomplete/)
      .first()
      .waitFor({ timeout: 30_000 })

    // Now the browser asks for it: the download was ended with the export, and fails.
    const downloading = page.waitForEvent('download', { timeout: 30_000 })
    await page.evaluate(() => (window as unknown as { __click: () => void }).__click())
    const download = await downloading
    const failure = await download.failure()
    expect(failure).not.toBeNull()
    for (const d of downloads) expect(await d.failure()).not.toBeNull()
  }, 180_000)
})
