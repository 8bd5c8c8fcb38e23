import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type RunningService } from '../../src/reference-service'
import { launchApp, type LaunchedApp } from './support/harness'

// The sync screen shows the limiter's pace against the configured limit, and says so when the
// service throttles us. The account keeps the default limit (60 a minute) while the service
// allows the tenant far less (6 per 30 s, as if other workstations spent the rest): after a
// few pages a 429 comes back, the requests are held for its Retry-After, and the screen says
// the service asked us to slow down.

describe('sync pace against a throttling service', () => {
  let app: LaunchedApp
  let service: RunningService

  beforeAll(async () => {
    service = await startService({
      calls: 3_000,
      seed: 3,
      tz: 'Europe/Istanbul',
      rateLimit: { requests: 6, perSeconds: 30 },
      quiet: true
    })
    app = await launchApp({ viewport: { width: 1280, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
    await service?.stop()
  })

  it('shows the pace against the limit, then "the service asked us to slow down" after a 429', async () => {
    const { page } = app
    await page.getByTestId('signin-form').waitFor({ timeout: 20_000 })
    await page.getByTestId('signin-url').fill(service.url)
    await page.getByTestId('signin-username').fill('demo')
    await page.getByTestId('signin-password').fill('demo')
    await page.getByTestId('signin-submit').click()
    await page.getByTestId('results-grid').waitFor({ timeout: 60_000 })

    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-90').click()
    await page.getByTestId('sync-start').click()
    await page.getByTestId('sync-progress').waitFor({ timeout: 15_000 })
    // The pace line names the configured limit: 60 a minute.
    const pace = page.getByTestId('sync-pace')
    await expect.poll(() => pace.textContent(), { timeout: 30_000 }).toMatch(/of 60 req\/min/)
    // A 429 holds the tenant's requests: the note says why, and the pace says it is held.
    const note = page.getByTestId('sync-throttled')
    await note.waitFor({ timeout: 60_000 })
    expect(await note.textContent()).toContain('The service asked us to slow down')
    expect(await note.getAttribute('role')).toBe('status')
    expect(await pace.textContent()).toMatch(/^\s*\d+ of 60 req\/min\s*$/)
    expect(service.admin.stats().byStatus['429']).toBeGreaterThanOrEqual(1)
    await app.screenshot('sync-throttled')
    await page.getByTestId('sync-cancel').click()
    await expect.poll(() => page.getByTestId('sync-progress').getAttribute('data-phase'), { timeout: 30_000 }).toBe('cancelled')
  })
})
