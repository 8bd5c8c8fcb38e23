import type { Page } from 'playwright-core'
import { expect } from 'vitest'

/** On a `serve --demo` tab: waits for the workspace, syncs the demo's last 7 days, and waits for the end. */
export async function syncDemoWeek(page: Page): Promise<void> {
  await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
  await page.getByTestId('nav-sync').click()
  await page.getByTestId('sync-date-7').click()
  await page.getByTestId('sync-start').click()
  await expect.poll(() => page.getByTestId('sync-progress').getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
}
