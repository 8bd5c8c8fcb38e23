import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchApp, type LaunchedApp } from './support/harness'

// `callsight serve --demo`: the tab opens on the demo tenant's workspace, no account and no
// sign-in screen, and the demo works end to end — sync, local search, the service mode.

describe('callsight serve --demo', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('opens on the demo workspace without signing in', async () => {
    const { page } = app
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    expect(await page.getByTestId('signin-form').count()).toBe(0)
    expect(await page.locator('.demo-badge').first().textContent()).toBe('Demo')
    // The same settings file as the desktop app: the demo is its active account.
    const settings = JSON.parse(readFileSync(join(app.serve.dataDir, 'settings.json'), 'utf8')) as { activeAccountId: string }
    expect(settings.activeAccountId).toBe('demo')
    await app.screenshot('40-demo-tab')
  })

  it('syncs the last 7 days of the demo and searches them offline', async () => {
    const { page } = app
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-7').click()
    await page.getByTestId('sync-start').click()
    const progress = page.getByTestId('sync-progress')
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    expect(Number((await page.getByTestId('sync-stored').textContent())?.replace(/\D/g, ''))).toBeGreaterThan(500)

    await page.getByTestId('nav-search').click()
    await page.getByTestId('mode-local').click()
    await page.getByTestId('search-input').fill('fatura')
    const count = page.getByTestId('result-count')
    await expect.poll(() => count.getAttribute('data-query'), { timeout: 10_000 }).toBe('fatura')
    await expect.poll(() => count.getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
    expect(Number(await count.getAttribute('data-total'))).toBeGreaterThan(0)
    await page.getByTestId('row-0').locator('mark.hit').first().waitFor()
    await app.screenshot('41-demo-search')
  })

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
