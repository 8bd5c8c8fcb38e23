import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type RunningService } from '../../src/reference-service'
import { PIPELINE_DEPTH } from '../../src/core/sync/fetch-pipeline'
import { MAX_TAKE } from '../../src/shared/service-limits'
import { invokeInPage as invoke, launchApp, type LaunchedApp } from './support/harness'

// A sync of 90 days, all results, cancelled part-way: the user goes to Search and back, and
// the sync screen offers to continue that run (the form as it was, "Continue" first, what is
// left). Continued, it asks the reference service only for what was not stored; cancelled
// again and continued after serve is started anew, the same. The service counts requests.

const SERVICE_CALLS = 9_000

interface LastScope {
  from: number
  to: number
  filters: { results: unknown; includeAnalysis: boolean }
}

describe('a cancelled sync continues', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'callsight-resume-e2e-'))
  let service: RunningService
  let app: LaunchedApp | null = null

  beforeAll(async () => {
    service = await startService({
      calls: SERVICE_CALLS,
      seed: 39,
      tz: 'Europe/Istanbul',
      rateLimit: { requests: 6_000, perSeconds: 60 },
      quiet: true
    })
  })
  afterAll(async () => {
    await app?.close()
    await service?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  async function signInIfAsked(page: Page): Promise<void> {
    const form = page.getByTestId('signin-form')
    const grid = page.getByTestId('results-grid')
    await Promise.race([form.waitFor({ timeout: 30_000 }), grid.waitFor({ timeout: 30_000 })])
    if (await grid.isVisible()) return
    await page.getByTestId('signin-url').fill(service.url)
    await page.getByTestId('signin-username').fill('demo')
    await page.getByTestId('signin-password').fill('demo')
    await page.getByTestId('signin-submit').click()
    await grid.waitFor({ timeout: 60_000 })
  }

  const storedCount = async (page: Page): Promise<number> =>
    Number((await page.getByTestId('sync-stored').textContent())?.replace(/\D/g, '') || '0')
  const cachedCalls = async (page: Page): Promise<number> => (await invoke<{ calls: number }>(page, 'cache.info', {})).calls

  async function cancelAfter(page: Page, atLeast: number): Promise<void> {
    await expect.poll(() => storedCount(page), { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(atLeast)
    await page.getByTestId('sync-cancel').click()
    await expect.poll(() => page.getByTestId('sync-progress').getAttribute('data-phase'), { timeout: 30_000 }).toBe('cancelled')
  }

  function inRange(s: LastScope): number {
    return service.admin.dump().filter((d) => {
      const at = Date.parse(d.callDate)
      return at >= s.from && at < s.to
    }).length
  }

  it('after leaving the screen, offers the same run and fetches only what is left', async () => {
    app = await launchApp({ serve: { dataDir }, viewport: { width: 1440, height: 900 } })
    const { page } = app
    await signInIfAsked(page)
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-90').click()
    await page.getByTestId('sync-results').getByText('All results').click()
    await page.getByTestId('sync-analysis').click()
    // Slow answers, so the run can be stopped part-way.
    service.admin.setFaults({ latencyMs: 700 })
    await page.getByTestId('sync-start').click()
    await cancelAfter(page, 1_000)
    const first = await cachedCalls(page)
    // No run finished yet, but calls are stored: the status bar says when the first sync
    // stopped and that Start continues it, and the scope shows the stretch stored.
    await expect
      .poll(() => page.getByTestId('cache-freshness').textContent(), { timeout: 10_000 })
      .toMatch(/First sync stopped at .*· Start continues/)
    expect(await page.locator('[data-testid^="scope-"] [data-testid="scope-partial"]').count()).toBe(1)

    await page.getByTestId('nav-search').click()
    await page.getByTestId('results-grid').waitFor()
    await page.getByTestId('nav-sync').click()
    // The form is the run's, not the defaults, and Continue comes first with what is left.
    const cont = page.getByTestId('sync-continue')
    await cont.waitFor({ timeout: 10_000 })
    expect(await page.getByTestId('sync-results').locator('[aria-pressed="true"]').textContent()).toContain('All results')
    expect(await page.locator('#sync-analysis').isChecked()).toBe(false)
    expect(await page.getByTestId('sync-left').textContent()).toMatch(/About [\d,]+ calls left: [\d,]+ requests/)
    expect(await page.locator('.actions button').first().getAttribute('data-testid')).toBe('sync-continue')
    // The sync screen explains itself: direction says "any", windows has its explanation,
    // and a full resync asks first, with why.
    expect(await page.getByTestId('sync-direction').textContent()).toContain('Any direction')
    expect(await page.getByTestId('sync-windows-label').getAttribute('title')).toContain('10,000 calls')
    await page.getByTestId('sync-full').click()
    expect(await page.getByTestId('sync-full-confirm').textContent()).toContain('including those already stored')
    await page.getByTestId('sync-full-no').click()
    expect(await page.getByTestId('sync-full-confirm').count()).toBe(0)
    expect(await page.getByTestId('sync-progress').getAttribute('data-phase')).toBe('cancelled')
    await app.screenshot('39b-en-sync-continue')

    const scope = (await invoke<{ lastScope: LastScope }>(page, 'sync.scopes', {})).lastScope
    const total = inRange(scope)
    expect(first).toBeLessThan(total)
    service.admin.resetStats()
    await cont.click()
    await cancelAfter(page, 1)
    const second = await cachedCalls(page)
    expect(second).toBeGreaterThan(first)
    // Each request brought new calls: nothing stored before was asked for again. Beyond the
    // pages themselves the service may see the pipeline's guesses and one ask retried after a
    // kept-alive connection was reset; a re-fetch of what was stored would be many pages more.
    const asked = service.admin.stats().requests
    expect(asked).toBeLessThanOrEqual(Math.ceil((second - first) / MAX_TAKE) + PIPELINE_DEPTH)
    expect(second).toBeLessThan(total)
    expect(app.pageErrors).toEqual([])
    await app.close()
    app = null

    // serve started anew (in Turkish): the run is offered again, and Start ends it without re-fetching.
    app = await launchApp({
      serve: { dataDir, env: { LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' } },
      locale: 'tr-TR',
      viewport: { width: 1440, height: 900 }
    })
    const again = app.page
    await signInIfAsked(again)
    await again.getByTestId('nav-sync').click()
    const resume = again.getByTestId('sync-continue')
    await resume.waitFor({ timeout: 15_000 })
    expect(await resume.textContent()).toContain('Eşitlemeyi sürdür')
    await app.screenshot('39b-tr-sync-continue')
    service.admin.setFaults({})
    service.admin.resetStats()
    // Start, as the user did, with the form as restored: its end is now, later than the
    // stopped pass's, and the pass still continues (keyed to the start the user chose).
    await again.getByTestId('sync-start').click()
    await expect.poll(() => again.getByTestId('sync-progress').getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    const last = await cachedCalls(again)
    expect(last).toBe(total)
    expect(service.admin.stats().requests).toBeLessThanOrEqual(Math.ceil((total - second) / MAX_TAKE) + PIPELINE_DEPTH)
    expect(app.pageErrors).toEqual([])
  })
})
