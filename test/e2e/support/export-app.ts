import { mkdirSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openCache } from '../../../src/core/cache'
import { ingest } from '../../../bench/search'
import { launchApp, type LaunchedApp, type LaunchOptions } from './harness'

/**
 * A data folder for `serve --demo` whose demo account's cache is written before serve starts:
 * `calls` generated calls with analysis (bench/search.ts), the index optimized when asked.
 */
export function demoDataDir(prefix: string, calls: number, opts: { optimize?: boolean } = {}): string {
  const dataDir = mkdtempSync(join(tmpdir(), prefix))
  mkdirSync(join(dataDir, 'accounts'))
  const cache = openCache(join(dataDir, 'accounts', 'demo.sqlite'))
  try {
    ingest(cache, calls, 20, () => undefined)
    if (opts.optimize) cache.optimizeIndex()
  } finally {
    cache.close()
  }
  return dataDir
}

/** The app served as given, on the local source with its count shown: every result ready to export. */
export async function launchOnLocalResults(serve: NonNullable<LaunchOptions['serve']>): Promise<LaunchedApp> {
  const app = await launchApp({ serve, viewport: { width: 1440, height: 900 } })
  await app.page.getByTestId('results-grid').waitFor({ timeout: 60_000 })
  await app.page.getByTestId('mode-local').click()
  await app.page.locator('[data-testid="result-count"][data-state="ready"]').waitFor({ timeout: 60_000 })
  return app
}
