import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPool, PgSyncStore, teamInit } from '../../src/core/team'
import type { RunningService } from '../../src/reference-service'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../support/pg-cluster'
import { engineFor, FROM_MS, signedInSession, startTestService, TO_MS } from '../integration/team/helpers'
import { launchApp, pickOption, type LaunchedApp } from './support/harness'

// An analyst connects the app (`callsight serve`, in real Chromium) to the team cache and
// pulls it: a real PostgreSQL filled by the real engine from the reference service.

describe('team cache in the app', () => {
  let cluster: PgCluster
  let service: RunningService
  let app: LaunchedApp

  beforeAll(async () => {
    ;[cluster, service] = await Promise.all([startPgCluster({ settings: FAST_TEST_SETTINGS }), startTestService({ calls: 1200 })])
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

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
