import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { launchApp, type LaunchedApp } from './support/harness'

// The sync screen's panel shows the account's last run after the app restarts (it is kept in
// the account's cache, sync_runs), with how long it took: synced in English, then the app is
// started again on the same data folder, in Turkish.

describe("the sync screen's last run after a restart", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'callsight-last-run-e2e-'))
  let app: LaunchedApp | null = null
  const shown = { run: '', stored: '' }

  afterAll(async () => {
    await app?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('shows the finished run with the time it took', async () => {
    app = await launchApp({ serve: { args: ['--demo'], dataDir }, viewport: { width: 1440, height: 900 } })
    const { page } = app
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-7').click()
    await page.getByTestId('sync-start').click()
    const progress = page.getByTestId('sync-progress')
    await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    shown.run = (await progress.getAttribute('data-run')) ?? ''
    shown.stored = (await page.getByTestId('sync-stored').textContent()) ?? ''
    expect(shown.run).not.toBe('')
    expect(Number(shown.stored.replace(/\D/g, ''))).toBeGreaterThan(0)
    const took = progress.locator('div', { has: page.getByTestId('sync-duration') })
    expect(await took.locator('dt').textContent()).toBe('Took')
    expect(await page.getByTestId('sync-duration').textContent()).toMatch(/^\d+(s|m \d\ds)$/)
    expect(app.pageErrors).toEqual([])
    await app.close()
    app = null
  })

  it('shows the same run again once the app is started anew (in Turkish)', async () => {
    app = await launchApp({
      serve: { args: ['--demo'], dataDir, env: { LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' } },
      locale: 'tr-TR',
      viewport: { width: 1440, height: 900 }
    })
    const { page } = app
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    await page.getByTestId('nav-sync').click()
    const progress = page.getByTestId('sync-progress')
    await progress.waitFor({ timeout: 15_000 })
    expect(await progress.getAttribute('data-run')).toBe(shown.run)
    expect(await progress.getAttribute('data-phase')).toBe('done')
    expect((await page.getByTestId('sync-stored').textContent())?.replace(/\D/g, '')).toBe(shown.stored.replace(/\D/g, ''))
    const took = progress.locator('div', { has: page.getByTestId('sync-duration') })
    expect(await took.locator('dt').textContent()).toBe('Süre')
    expect(await page.getByTestId('sync-duration').textContent()).toMatch(/^\d+ sn|^\d+ dk/)
    expect(app.pageErrors).toEqual([])
  })
})
