import { readFileSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { demoDataDir, launchOnLocalResults } from './support/export-app'
import type { LaunchedApp } from './support/harness'

// An export in the browser tab says 100 % only when the file is complete: the bar is the
// export's own progress, and a bar at 100 % followed by seconds of nothing reads as a hang.
// The order is checked on events, not on the clock: no report while writing is complete, the
// first complete one is the server's "done" (sent once the file is whole), and the download
// follows it.

interface Seen {
  phase: string
  written: number
  total: number
}

describe('export progress in the browser tab', () => {
  let app: LaunchedApp
  let dataDir: string

  beforeAll(async () => {
    // The demo account's cache written before serve starts: generated calls with analysis.
    dataDir = demoDataDir('callsight-export-progress-e2e-', 3_000)
    app = await launchOnLocalResults({ args: ['--demo'], dataDir })
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it.each(['csv', 'xlsx'] as const)(
    'reaches the whole of a %s export only once the file is complete',
    async (format) => {
      const { page } = app
      await page.getByTestId('export-open').click()
      const dialog = page.getByTestId('export-dialog')
      await dialog.getByText(format.toUpperCase(), { exact: true }).click()
      await dialog.getByTestId('export-what-all').click()
      await page.evaluate(() => {
        const w = window as unknown as { __seen: Seen[]; api: { on(e: string, f: (p: unknown) => void): () => void } }
        // Its own list: a listener of an earlier case stays subscribed.
        const seen: Seen[] = []
        w.__seen = seen
        w.api.on('export.progress', (p) => seen.push(p as Seen))
      })
      const downloading = page.waitForEvent('download', {
        timeout: 120_000,
        predicate: (d) => d.suggestedFilename().endsWith(`.${format}`)
      })
      await dialog.getByTestId('export-start').click()
      const download = await downloading
      const file = await download.path()
      const seen = await page.evaluate(() => (window as unknown as { __seen: Seen[] }).__seen)

      const writing = seen.filter((p) => p.phase === 'writing')
      expect(writing.length).toBeGreaterThan(0)
      // While writing, never the whole: the last records read are not yet the file.
      for (const p of writing) expect(p.written).toBeLessThan(p.total)
      const firstWhole = seen.findIndex((p) => p.total > 0 && p.written >= p.total)
      expect(seen[firstWhole]?.phase).toBe('done')
      expect(firstWhole).toBe(seen.length - 1)
      // The download the page was handed is the complete file: every call of the export in it.
      const done = seen[firstWhole]!
      if (format === 'csv') {
        const lines = readFileSync(file, 'utf8')
          .replace(/^\uFEFF/, '')
          .trim()
          .split(/\r\n/)
        expect(lines.length).toBeGreaterThanOrEqual(done.written + 1)
      } else {
        expect(readFileSync(file).subarray(0, 2).toString('latin1')).toBe('PK')
      }
      await page.keyboard.press('Escape')
    },
    180_000
  )
})
