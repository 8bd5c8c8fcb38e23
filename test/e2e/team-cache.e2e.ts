import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, DAY_MS, enableTeamSearch, PgSyncStore, teamInit } from '../../src/core/team'
import type { RunningService } from '../../src/reference-service'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../support/pg-cluster'
import { engineFor, signedInSession, startTestService } from '../integration/team/helpers'
import { launchApp, pickOption, type LaunchedApp } from './support/harness'

// An analyst connects the app (`callsight serve`, in real Chromium) to the team cache and
// pulls it: a real PostgreSQL filled by the real engine from the reference service. The calls
// span the last 30 days (the app's window counts back from its own clock), so a window of 10
// days leaves most of them to the team cache.
const HOUR_MS = 3_600_000
const TO_MS = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - HOUR_MS
const FROM_MS = TO_MS - 30 * DAY_MS
const WINDOW_DAYS = 10
/** A word of one theme's titles and summaries: a result set the test can read whole. */
const WORD = 'modem'

/** Every call id of the shown results, in order: the list is virtual, so it is scrolled through (bounded). */
async function resultIds(page: Page): Promise<string[]> {
  const grid = page.getByTestId('results-grid')
  const total = Number(await grid.getAttribute('data-total'))
  const ids = new Map<number, string>()
  const rendered = (): Promise<Array<readonly [number, string | null]>> =>
    grid
      .locator('.results-row')
      .evaluateAll((rows) => rows.map((r) => [Number(r.getAttribute('aria-rowindex')) - 1, r.getAttribute('data-call-id')] as const))
  for (let step = 0; step < 60; step++) {
    // Every rendered row loaded (a row of a page on its way has no id yet) before scrolling on.
    let first = -1
    await expect
      .poll(
        async () => {
          const seen = await rendered()
          for (const [offset, id] of seen) if (id) ids.set(offset, id)
          first = seen[0]?.[0] ?? -1
          return seen.length > 0 && seen.every(([, id]) => id)
        },
        { timeout: 10_000 }
      )
      .toBe(true)
    const moved = await grid.evaluate((el) => {
      const top = el.scrollTop
      el.scrollBy(0, el.clientHeight * 0.8)
      return el.scrollTop !== top
    })
    if (!moved) break
    // The list follows the scroll on the next frame: its rows move before they are read again.
    await expect.poll(async () => (await rendered())[0]?.[0], { timeout: 10_000 }).not.toBe(first)
  }
  expect(ids.size).toBe(total)
  return [...ids.entries()].sort((a, b) => a[0] - b[0]).map(([, id]) => id)
}

/** Runs `text` and waits for its count: the shown total is then the whole result's. */
async function searchFor(page: Page, text: string): Promise<number> {
  const input = page.getByTestId('search-input')
  const count = page.getByTestId('result-count')
  // Through an empty query first: the same text again would leave the earlier answer's state up.
  for (const t of ['', text]) {
    await input.fill(t)
    await input.press('Enter')
    await expect
      .poll(async () => [await count.getAttribute('data-query'), await count.getAttribute('data-state')], { timeout: 20_000 })
      .toEqual([t, 'ready'])
  }
  return Number(await count.getAttribute('data-total'))
}

describe('team cache in the app', () => {
  let cluster: PgCluster
  let service: RunningService
  let app: LaunchedApp

  beforeAll(async () => {
    ;[cluster, service] = await Promise.all([
      startPgCluster({ settings: FAST_TEST_SETTINGS }),
      startTestService({ calls: 1200, from: new Date(FROM_MS).toISOString(), to: new Date(TO_MS).toISOString() })
    ])
    await cluster.sql('CREATE DATABASE team')
    const pool = createPool({ url: cluster.urlFor({ database: 'team' }), schema: 'acme' })
    await teamInit({
      pool,
      schema: 'acme',
      writerRole: 'acme_writer',
      readerRole: 'acme_reader',
      writerPassword: 'w-pw',
      readerPassword: 'reader-pw-1'
    })
    // The operator turns the team cache search on (off by default): the window test asks it.
    await enableTeamSearch(pool, 'acme')
    await pool.end()
    const store = await PgSyncStore.open({
      url: cluster.urlFor({ database: 'team', user: 'acme_writer', password: 'w-pw' }),
      schema: 'acme'
    })
    const { session } = await signedInSession(service)
    await engineFor(session, store).run({ from: FROM_MS, to: TO_MS, results: 'all', includeAnalysis: true }, { mode: 'full' })
    await store.close()
    app = await launchApp()
  }, 120_000)
  afterAll(async () => {
    await app?.close()
    await service?.stop()
    await cluster?.stop()
  })

  it('connects with the read-only role, refusing a wrong password first, and pulls every call', async () => {
    const { page } = app
    await page.getByTestId('signin-form').waitFor({ timeout: 20_000 })
    await page.getByTestId('signin-url').fill(service.url)
    await page.getByTestId('signin-username').fill('demo')
    await page.getByTestId('team-connect-section').locator('summary').click()
    await page.getByTestId('team-url').fill(`postgres://acme_reader@127.0.0.1:${cluster.port}/team`)
    await page.getByTestId('team-schema').fill('acme')
    await page.getByTestId('team-ssl').click()
    await pickOption(page, /Not encrypted/)
    await page.getByTestId('team-password').fill('wrong')
    expect(await page.getByTestId('team-password').inputValue()).toBe('wrong')
    await page.getByTestId('team-connect').click()
    // The form answers with the connection's error, or (if a field were lost) says what is
    // missing: either way at once, so a failure here names which (one CI run timed out waiting).
    await page
      .locator('[data-testid="team-connect-error"], [data-testid="team-missing"]')
      .first()
      .waitFor({ timeout: 30_000 })
      .catch((e: Error) => {
        // The app's log says whether the call arrived and how long it took ("IPC call slow").
        throw new Error(`${e.message}\nserve log:\n${app.serve.log().slice(-4000)}\nserve stderr:\n${app.serve.stderr().slice(-2000)}`)
      })
    const fields = await Promise.all(
      ['signin-url', 'signin-username', 'team-url', 'team-schema'].map((id) => page.getByTestId(id).inputValue())
    )
    expect({ missing: await page.getByTestId('team-missing').count(), fields }).toEqual({
      missing: 0,
      fields: [service.url, 'demo', `postgres://acme_reader@127.0.0.1:${cluster.port}/team`, 'acme']
    })
    const error = page.getByTestId('team-connect-error')
    await expect.poll(() => error.getAttribute('data-code'), { timeout: 20_000 }).toBe('InvalidCredentials')
    // In the team cache's words: it refused the role, not "the user name" of the service.
    expect(await error.textContent()).toMatch(/team cache refused the role or its password/)
    expect(await page.getByTestId('team-password').inputValue()).toBe('')

    await page.getByTestId('team-password').fill('reader-pw-1')
    await page.getByTestId('team-connect').click()
    await page.waitForURL(/#\/search/, { timeout: 20_000 })
    await page.goto(page.url().replace(/#.*$/, '#/sync'))
    await page.getByTestId('team-panel').waitFor({ timeout: 20_000 })
    service.admin.resetStats()
    await page.getByTestId('team-pull').click()
    await expect.poll(() => page.getByTestId('team-progress').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done')
    expect(await page.getByTestId('team-pulled').textContent()).toContain('1,200')
    expect(service.admin.stats().requests).toBe(0)
    // The pulled scope shows like a synced one, and the last pull is dated.
    await page.getByTestId('sync-scopes').waitFor({ timeout: 10_000 })
    await expect.poll(() => page.getByTestId('team-last-pull').textContent(), { timeout: 10_000 }).not.toContain('never')
    // The app pulls on its own from now on: the status bar and the panel say as of when, and when next.
    await expect
      .poll(() => page.getByTestId('team-freshness').textContent(), { timeout: 30_000 })
      .toMatch(/Team cache as of \d\d:\d\d · next \d\d:\d\d/)
    expect(await page.getByTestId('team-schedule').textContent()).toMatch(/next pull at \d\d:\d\d/)
    await app.screenshot('60-team-cache-pulled')

    // Remote search needs the service: signing in keeps the account's team cache.
    await page.getByTestId('team-signin-link').click()
    await page.getByTestId('signin-password').fill('demo')
    await page.getByTestId('signin-submit').click()
    await page.waitForURL(/#\/search/, { timeout: 20_000 })
    await page.goto(page.url().replace(/#.*$/, '#/sync'))
    await page.getByTestId('team-panel').waitFor({ timeout: 20_000 })
    expect(await page.getByTestId('team-remote-hint').count()).toBe(0)
  }, 90_000)

  it('searches the team cache for what a window of days leaves out, with the same answer as the whole', async () => {
    const { page } = app
    await page.goto(page.url().replace(/#.*$/, '#/search'))
    // Everything pulled: the local answer is the whole one.
    // The worker syncs every result: "answered only" is a scope it does not hold.
    await page.getByTestId('filter-results').getByText('All results').click()
    const total = await searchFor(page, WORD)
    expect(total).toBeGreaterThan(0)
    const whole = await resultIds(page)
    expect(await page.getByTestId('mode-team').count()).toBe(1)

    await page.goto(page.url().replace(/#.*$/, '#/sync'))
    const days = page.locator('#team-window-days')
    await days.click()
    await days.press('Control+a')
    await days.pressSequentially(String(WINDOW_DAYS))
    await days.press('Tab')
    const apply = page.getByTestId('team-window-apply')
    await expect.poll(() => apply.isEnabled(), { timeout: 30_000 }).toBe(true)
    await apply.click()
    await expect.poll(() => page.getByTestId('team-window-held').getAttribute('data-days'), { timeout: 30_000 }).toBe(String(WINDOW_DAYS))
    await expect.poll(() => page.getByTestId('team-progress').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done')

    await page.goto(page.url().replace(/#.*$/, '#/search'))
    const held = await searchFor(page, WORD)
    expect(held).toBeLessThan(total)
    const banner = page.getByTestId('coverage-window')
    await banner.waitFor({ timeout: 15_000 })
    expect(await page.getByTestId('coverage-window-text').textContent()).toContain(`last ${WINDOW_DAYS} days`)

    await page.getByTestId('coverage-team').click()
    await expect.poll(() => page.getByTestId('search-mode').getAttribute('class')).toContain('mode-team')
    const count = page.getByTestId('result-count')
    await expect
      .poll(async () => [await count.getAttribute('data-state'), await count.textContent()], { timeout: 20_000 })
      .toEqual(['ready', expect.stringMatching(new RegExp(`${total} results`))])
    expect(await page.getByTestId('search-input').inputValue()).toBe(WORD)
    expect(await resultIds(page)).toEqual(whole)
    // A call older than the window opens from the team cache.
    const last = page.getByTestId('results-grid').locator(`[data-call-id="${whole[whole.length - 1]}"]`)
    await last.click()
    await expect.poll(() => page.getByTestId('detail-call-id').textContent(), { timeout: 15_000 }).toBe(whole[whole.length - 1])
    expect((await page.getByTestId('detail-title').textContent())?.trim()).not.toBe('')
    await app.screenshot('61-team-cache-search')
  }, 90_000)

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
