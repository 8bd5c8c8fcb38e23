import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PgSyncStore } from '../../src/core/team'
import type { RunningService } from '../../src/reference-service'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../support/pg-cluster'
import { engineFor, FROM_MS, signedInSession, startTestService, TO_MS } from '../integration/team/helpers'
import { passwordOf, SCHEMA, setUpTenant } from '../integration/team/review-support'
import { invokeInPage as invoke, launchApp, launchBrowser, pickOption, saveScreenshot, type LaunchedApp } from './support/harness'

// Review as a team in Chromium, through PostgreSQL: one real cluster filled by the worker's
// engine from the reference service, `team add-analyst lead --lead`, `ayse` and `mehmet`, and
// three workstations (`callsight serve` each, its own data folder, a context each in one
// browser) that connect with their own login and pull. The lead samples a list from a search
// and spreads it across the two; each reviewer's "my assignments" fills as the lead's work
// arrives (live, or with a pull), each reviews with the keyboard; the lead sees the progress
// per reviewer and the per-agent chart, runs a five-call calibration both score blind with
// the keyboard, and reads the agreement. Screenshots in English and Turkish.

const DB = 'team'
const WHO = ['lead', 'ayse', 'mehmet'] as const
type Who = (typeof WHO)[number]
/** Long enough for a pull or a live delivery on a loaded machine; never a sleep. */
const ARRIVE = { timeout: 30_000, interval: 250 }
/** A key's effect on screen: three workstations share two loaded cores. */
const STEP = { timeout: 10_000 }

describe('team review through the team cache', () => {
  let cluster: PgCluster
  let service: RunningService
  let browser: Browser
  const apps = {} as Record<Who, LaunchedApp>
  const page = (who: Who): Page => apps[who].page
  const counts = new Map<string, number>()

  beforeAll(async () => {
    ;[cluster, service] = await Promise.all([startPgCluster({ settings: FAST_TEST_SETTINGS }), startTestService({ calls: 300 })])
    await cluster.sql(`CREATE DATABASE ${DB}`)
    // What `team init` and `team add-analyst` run (as the database owner).
    await setUpTenant(cluster, DB, [{ name: 'lead', lead: true }, { name: 'ayse' }, { name: 'mehmet' }])
    const store = await PgSyncStore.open({
      url: cluster.urlFor({ database: DB, user: `${SCHEMA}_writer`, password: 'writer-pw-1' }),
      schema: SCHEMA
    })
    const { session } = await signedInSession(service)
    await engineFor(session, store).run({ from: FROM_MS, to: TO_MS, results: 'all', includeAnalysis: true }, { mode: 'full' })
    await store.close()
    browser = await launchBrowser()
    const launched = await Promise.all(WHO.map(() => launchApp({ browser, viewport: { width: 1440, height: 900 } })))
    WHO.forEach((who, i) => (apps[who] = launched[i]!))
  }, 120_000)
  afterAll(async () => {
    await Promise.all(WHO.map((who) => apps[who]?.close()))
    await browser?.close()
    await service?.stop()
    await cluster?.stop()
  })

  const goTo = (p: Page, route: string): Promise<unknown> => p.goto(p.url().replace(/#.*$/, `#/${route}`))

  /** The team connect form with the analyst's own login, then a first pull from the Sync screen. */
  async function connectAndPull(who: Who): Promise<void> {
    const p = page(who)
    await p.getByTestId('signin-form').waitFor({ timeout: 20_000 })
    await p.getByTestId('signin-url').fill(service.url)
    await p.getByTestId('signin-username').fill(who)
    await p.getByTestId('team-connect-section').locator('summary').click()
    await p.getByTestId('team-url').fill(`postgres://${who}@127.0.0.1:${cluster.port}/${DB}`)
    await p.getByTestId('team-schema').fill(SCHEMA)
    await p.getByTestId('team-ssl').click()
    await pickOption(p, /Not encrypted/)
    await p.getByTestId('team-password').fill(passwordOf(who))
    await p.getByTestId('team-connect').click()
    await p.waitForURL(/#\/search/, { timeout: 20_000 })
    await goTo(p, 'sync')
    await p.getByTestId('team-panel').waitFor({ timeout: 20_000 })
    await p.getByTestId('team-pull').click()
    await expect.poll(() => p.getByTestId('team-progress').getAttribute('data-phase'), { timeout: 30_000 }).toBe('done')
    expect(await p.getByTestId('team-pulled').textContent()).toContain('300')
  }

  it('connects three workstations, each with its own login, and pulls the calls', async () => {
    await Promise.all(WHO.map(connectAndPull))
    // The author is the PostgreSQL role, not a typed name.
    for (const who of WHO) expect(await invoke<{ reviewer: string }>(page(who), 'review.reviewer', {})).toEqual({ reviewer: who })
  }, 90_000)

  it('lets the lead sample a list from a search and spread it evenly across two reviewers', async () => {
    const p = page('lead')
    await invoke(p, 'scorecards.save', {
      definition: {
        name: 'Kalite formu',
        criteria: [
          { id: 'greet', name: 'Selamlama', weight: 1, scale: '1_5', critical: false },
          { id: 'kvkk', name: 'KVKK', weight: 1, scale: 'yes_no', critical: true }
        ]
      }
    })
    await goTo(p, 'search')
    // The worker syncs every call, answered or not: so does the lead's search.
    await p.getByTestId('filter-results').getByText('All results').click()
    await p.getByTestId('search-input').fill('fatura')
    await expect.poll(() => p.getByTestId('result-count').getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
    expect(Number(await p.getByTestId('result-count').getAttribute('data-total'))).toBeGreaterThan(20)
    await p.getByTestId('nav-review').click()
    await p.getByTestId('review-list-name').fill('Ekip örneği')
    await p.getByTestId('review-sample-kind').selectOption('percent')
    await p.getByTestId('review-sample-value').fill('15')
    await p.getByTestId('review-create').click()
    await p.getByTestId('review-call').waitFor({ timeout: 15_000 })
    await p.getByTestId('assign-reviewers').fill('ayse, mehmet')
    await p.getByTestId('assign-spread').click()
    const rows = p.getByTestId('assign-progress').locator('li')
    await expect.poll(() => rows.count()).toBe(2)
    for (const who of ['ayse', 'mehmet']) {
      const text = await p.getByTestId('assign-progress').locator(`li[data-reviewer="${who}"]`).textContent()
      counts.set(who, Number(text?.match(/of (\d+) reviewed/)?.[1]))
    }
    const [a, m] = [counts.get('ayse')!, counts.get('mehmet')!]
    expect(a + m).toBeGreaterThanOrEqual(5)
    expect(Math.abs(a - m)).toBeLessThanOrEqual(1)
  }, 60_000)

  it('has each reviewer review their own assignments with the keyboard, next unreviewed first', async () => {
    const plans: Record<'ayse' | 'mehmet', string[]> = { ayse: ['5', '1'], mehmet: ['3', '0'] }
    await Promise.all(
      (['ayse', 'mehmet'] as const).map(async (who) => {
        const p = page(who)
        await p.getByTestId('nav-review').click()
        // The lead's list, scorecard and assignments arrive on their own (no reload, no click).
        await expect.poll(() => p.getByTestId('my-progress').textContent(), ARRIVE).toBe(`0 of ${counts.get(who)} reviewed`)
        await p.getByTestId('open-mine').click()
        await p.getByTestId('review-mine-title').waitFor()
        const call = p.getByTestId('review-call')
        const seen: string[] = []
        for (let i = 0; i < 2; i++) {
          const id = (await call.getAttribute('data-call-id'))!
          seen.push(id)
          for (const k of plans[who]) await p.keyboard.press(k)
          await expect.poll(() => p.getByTestId('review-total').textContent(), STEP).toMatch(/\d/)
          await p.keyboard.press('r')
          await expect.poll(() => p.getByTestId('review-status-reviewed').getAttribute('aria-pressed'), STEP).toBe('true')
          await p.keyboard.press('u')
          await expect.poll(() => call.getAttribute('data-call-id'), STEP).not.toBe(id)
        }
        await expect.poll(() => p.getByTestId('review-mine-progress').textContent(), STEP).toBe(`2 of ${counts.get(who)} reviewed`)
        const mine = await invoke<{ items: Array<{ callId: string; reviewer: string; done: boolean }> }>(p, 'assignments.mine', {})
        expect(mine.items.every((i) => i.reviewer === who)).toBe(true)
        // The next unreviewed comes first, the two reviewed last.
        expect(mine.items[0]!.done).toBe(false)
        expect(mine.items.slice(-2).map((i) => [i.callId, i.done])).toEqual(seen.map((s) => [s, true]))
      })
    )
    await saveScreenshot(page('ayse'), '70-team-my-assignments-en')
  }, 90_000)

  it("says an analyst's removal of a call from the lead's list was refused, and the call is back", async () => {
    const p = page('mehmet')
    const call = p.getByTestId('review-call')
    const id = (await call.getAttribute('data-call-id'))!
    const listId = await p.evaluate(() => document.querySelector('.list-items li.active button')?.getAttribute('data-testid'))
    expect(listId).toBe('review-list-Ekip örneği')
    await p.keyboard.press('Delete')
    const confirm = p.getByTestId('review-remove-confirm')
    await confirm.waitFor()
    expect(await confirm.textContent()).toContain('Remove 1 call from the list “Ekip örneği”?')
    await p.keyboard.press('Enter')
    // Removed here at once; the live sync pushes it, the team cache refuses it (not a lead's),
    // and the call comes back with its assignee: the screen says so.
    const notice = p.getByTestId('review-removal-notice')
    await expect.poll(() => notice.getAttribute('data-kind'), ARRIVE).toBe('refused')
    expect(await notice.textContent()).toContain('The team cache refused removing 1 call from “Ekip örneği”')
    const lists = await invoke<Array<{ id: string; name: string }>>(p, 'reviewLists.list', {})
    const list = lists.find((l) => l.name === 'Ekip örneği')!
    const items = await invoke<{ items: Array<{ callId: string }> }>(p, 'reviewLists.items', { id: list.id, offset: 0, limit: 1000 })
    expect(items.items.map((i) => i.callId)).toContain(id)
    const mine = await invoke<{ items: Array<{ callId: string }> }>(p, 'assignments.mine', {})
    expect(mine.items.map((i) => i.callId)).toContain(id)
    await saveScreenshot(p, '71-team-removal-refused-en')
  }, 60_000)

  it('shows the lead the progress per reviewer and the per-agent chart in Insight', async () => {
    const p = page('lead')
    await p.getByTestId('nav-insight').click()
    const lead = p.getByTestId('lead-insight')
    await lead.waitFor({ timeout: 15_000 })
    for (const who of ['ayse', 'mehmet']) {
      const row = p.getByTestId('lead-progress').locator(`li[data-reviewer="${who}"]`)
      await expect.poll(() => row.getAttribute('data-reviewed'), ARRIVE).toBe('2')
      expect(await row.getAttribute('data-assigned')).toBe(String(counts.get(who)))
    }
    expect(await p.getByTestId('lead-agent-field').textContent()).toContain('agentName')
    const agents = p.getByTestId('lead-agents')
    await expect.poll(() => agents.getAttribute('data-rows').then(Number), ARRIVE).toBeGreaterThan(0)
    expect(await agents.locator('canvas').count()).toBeGreaterThan(0)
    // Both reviewers' evaluations, side by side: each scored as themself.
    await expect.poll(() => p.getByTestId('lead-reviewers').getAttribute('data-rows'), ARRIVE).toBe('2')
    expect(await p.getByTestId('lead-failed').textContent()).toContain('KVKK')
    await lead.scrollIntoViewIfNeeded()
    await saveScreenshot(p, '71-team-lead-view-en')
    // (The drill from a chart row to Search is checked on a local account, team-review.e2e.ts:
    // Search's review filters read this workstation's own scores, not the pulled evaluations.)
  }, 60_000)

  it('runs a five-call calibration scored blind by both reviewers and shows the lead the agreement', async () => {
    const lp = page('lead')
    await lp.getByTestId('nav-review').click()
    await lp.getByTestId('open-calibration').click()
    await lp.getByTestId('calibration-name').fill('Kasım kalibrasyonu')
    await lp.getByTestId('calibration-count').fill('5')
    await lp.getByTestId('calibration-reviewers').fill('ayse, mehmet')
    await lp.getByTestId('calibration-create').click()
    await lp.getByTestId('calibration-scoring').waitFor()
    expect(await lp.getByTestId('calibration-position').textContent()).toBe('Call 1 of 5')

    // ayse 4/yes on every call; mehmet agrees on the first three and differs on the last two.
    const plans: Record<'ayse' | 'mehmet', string[][]> = {
      ayse: [
        ['4', '1'],
        ['4', '1'],
        ['4', '1'],
        ['4', '1'],
        ['4', '1']
      ],
      mehmet: [
        ['4', '1'],
        ['4', '1'],
        ['4', '1'],
        ['2', '1'],
        ['4', '0']
      ]
    }
    const score = async (who: 'ayse' | 'mehmet'): Promise<void> => {
      const p = page(who)
      await p.getByTestId('open-calibration').click()
      // The lead's round arrives on its own.
      await p.getByTestId('calibration-Kasım kalibrasyonu').click(ARRIVE)
      await p.getByTestId('calibration-blind').waitFor()
      for (const [i, keys] of plans[who].entries()) {
        const call = await p.getByTestId('calibration-scoring').getAttribute('data-call-id')
        for (const k of keys) await p.keyboard.press(k)
        await expect.poll(() => p.getByTestId('calibration-criterion-1').getAttribute('data-answer'), STEP).toBe(keys[1])
        expect(await p.getByTestId('calibration-criterion-0').getAttribute('data-answer')).toBe(keys[0])
        if (i < 4) {
          await p.keyboard.press('j')
          await expect.poll(() => p.getByTestId('calibration-scoring').getAttribute('data-call-id'), STEP).not.toBe(call)
        }
      }
      // Blind until submitted: no one else's answers, no result.
      expect(await p.getByTestId('calibration-results').count()).toBe(0)
    }
    await Promise.all([score('ayse'), score('mehmet')])
    await saveScreenshot(page('ayse'), '72-team-calibration-blind-en')
    for (const who of ['ayse', 'mehmet'] as const) {
      const p = page(who)
      await p.getByTestId('calibration-submit').click()
      await p.getByTestId('calibration-submitted').waitFor()
      await p.getByTestId('calibration-results').waitFor()
    }
    // ayse submitted first: mehmet's answers reach her once he has submitted too.
    const results = page('ayse').getByTestId('calibration-results')
    await expect.poll(() => results.locator('[data-criterion="greet"] [data-col="percent"]').textContent(), ARRIVE).toBe('80%')

    // The lead, who reviews none of it, reads every answer: Selamlama 4,4,4,2,4 against 4 each time.
    const lead = lp.getByTestId('calibration-results')
    await expect.poll(() => lead.locator('[data-criterion="greet"] [data-col="percent"]').textContent(), ARRIVE).toBe('80%')
    expect(await lead.locator('[data-criterion="kvkk"] [data-col="percent"]').textContent()).toBe('80%')
    expect(await lp.getByTestId('calibration-overall').textContent()).toMatch(/^Overall: α -?\d/)
    const rounds = await invoke<Array<{ id: string }>>(lp, 'calibration.list', {})
    const view = await invoke<{ result: { criteria: Array<{ criterionId: string }> } }>(lp, 'calibration.get', { id: rounds[0]!.id })
    expect(view.result.criteria.map((c) => c.criterionId)).toEqual(['greet', 'kvkk'])
    await saveScreenshot(lp, '73-team-calibration-results-en')
    // The calls' own review scores are untouched by calibration.
    const stats = await invoke<{ perReviewer: Array<{ name: string; count: number }> }>(lp, 'review.leadStats', {})
    expect(stats.perReviewer.map((r) => [r.name, r.count])).toEqual([
      ['ayse', 2],
      ['mehmet', 2]
    ])
  }, 90_000)

  it('shows the same screens in Turkish', async () => {
    const lp = page('lead')
    await invoke(lp, 'settings.update', { language: 'tr' })
    await lp.reload()
    await lp.getByTestId('nav-insight').click()
    await lp.getByTestId('lead-insight').waitFor({ timeout: 15_000 })
    // The panel's title shows before its figures arrive.
    await expect.poll(() => lp.getByTestId('lead-insight').textContent()).toContain('Temsilci başına ortalama puan')
    await lp.getByTestId('lead-insight').scrollIntoViewIfNeeded()
    await saveScreenshot(lp, '74-team-lead-view-tr')
    await lp.getByTestId('nav-review').click()
    await lp.getByTestId('open-calibration').click()
    await lp.getByTestId('calibration-Kasım kalibrasyonu').click()
    await lp.getByTestId('calibration-results').waitFor()
    expect(await lp.getByTestId('calibration-overall').textContent()).toMatch(/^Genel: α/)
    await saveScreenshot(lp, '75-team-calibration-tr')
    const ap = page('ayse')
    await invoke(ap, 'settings.update', { language: 'tr' })
    await ap.reload()
    await ap.getByTestId('nav-review').click()
    await ap.getByTestId('open-mine').click()
    await ap.getByTestId('review-mine-title').waitFor()
    expect(await ap.getByTestId('review-mine-title').textContent()).toContain('Atananlarım')
    await saveScreenshot(ap, '76-team-my-assignments-tr')
  }, 60_000)

  it('ran without page errors or CSP violations', () => {
    for (const who of WHO) expect({ who, errors: apps[who].pageErrors }).toEqual({ who, errors: [] })
  })
})
