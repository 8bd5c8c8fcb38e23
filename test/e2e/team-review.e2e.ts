import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { invokeInPage as invoke, launchApp, type LaunchedApp } from './support/harness'

// Team review in Chromium over `callsight serve --demo`, on one local account shared by a
// lead and two reviewers who switch the reviewer name ("Reviewing as"): the lead samples a
// list and spreads it across the two, each reviews their assignments with the keyboard, the
// lead sees the progress and the per-agent chart in Insight and drills from an agent's row to
// that agent's scored calls in Search. The same flow across three workstations through
// PostgreSQL, with calibration and the Turkish screens, is team-review-shared.e2e.ts.
// Screenshots go to a temp folder (CALLSIGHT_SHOTS to choose it).

const SHOTS = process.env['CALLSIGHT_SHOTS'] ?? join(tmpdir(), 'callsight-team-review-shots')

async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true })
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })
}

describe('team review', () => {
  let app: LaunchedApp
  const counts = new Map<string, number>()

  beforeAll(async () => {
    app = await launchApp({ serve: { args: ['--demo'] }, viewport: { width: 1440, height: 900 } })
  })
  afterAll(async () => {
    await app?.close()
  })

  /** Switches the reviewer from the Review screen's panel. */
  async function reviewAs(name: string): Promise<void> {
    const { page } = app
    await page.getByTestId('nav-review').click()
    // The panel fills the box with the current reviewer when its first load ends: a name typed
    // before that lands after it ("demo" + "lead"), so wait for the box to be filled first.
    const current = await invoke<{ reviewer: string }>(page, 'review.reviewer', {}).then((r) => r.reviewer)
    await expect.poll(() => page.getByTestId('reviewer-name').inputValue()).toBe(current)
    await page.getByTestId('reviewer-name').fill(name)
    await page.getByTestId('reviewer-switch').click()
    await expect.poll(() => invoke<{ reviewer: string }>(page, 'review.reviewer', {}).then((r) => r.reviewer)).toBe(name)
  }

  it('syncs the demo and defines a scorecard', async () => {
    const { page } = app
    await page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
    await page.getByTestId('nav-sync').click()
    await page.getByTestId('sync-date-7').click()
    await page.getByTestId('sync-start').click()
    await expect.poll(() => page.getByTestId('sync-progress').getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
    await invoke(page, 'scorecards.save', {
      definition: {
        name: 'Kalite formu',
        criteria: [
          { id: 'greet', name: 'Selamlama', weight: 1, scale: '1_5', critical: false },
          { id: 'kvkk', name: 'KVKK', weight: 1, scale: 'yes_no', critical: true }
        ]
      }
    })
  })

  it('lets the lead sample a list and spread it evenly across two reviewers', async () => {
    const { page } = app
    await reviewAs('lead')
    await page.getByTestId('nav-search').click()
    await page.getByTestId('search-input').fill('fatura')
    await expect.poll(() => page.getByTestId('result-count').getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
    await page.getByTestId('nav-review').click()
    await page.getByTestId('review-list-name').fill('Ekip örneği')
    await page.getByTestId('review-sample-kind').selectOption('perDay')
    await page.getByTestId('review-sample-value').fill('1')
    await page.getByTestId('review-create').click()
    await page.getByTestId('review-call').waitFor({ timeout: 15_000 })
    await page.getByTestId('assign-reviewers').fill('ayse, mehmet')
    await page.getByTestId('assign-spread').click()
    const rows = page.getByTestId('assign-progress').locator('li')
    await expect.poll(() => rows.count()).toBe(2)
    for (const who of ['ayse', 'mehmet']) {
      const text = await page.getByTestId('assign-progress').locator(`li[data-reviewer="${who}"]`).textContent()
      counts.set(who, Number(text?.match(/of (\d+) reviewed/)?.[1]))
    }
    const [a, m] = [counts.get('ayse')!, counts.get('mehmet')!]
    expect(a + m).toBeGreaterThanOrEqual(5)
    expect(Math.abs(a - m)).toBeLessThanOrEqual(1)
  })

  it('has each reviewer review their own assignments with the keyboard, next unreviewed first', async () => {
    const { page } = app
    for (const [who, answers] of [
      ['ayse', ['5', '1']],
      ['mehmet', ['3', '0']]
    ] as const) {
      await reviewAs(who)
      await expect.poll(() => page.getByTestId('my-progress').textContent()).toBe(`0 of ${counts.get(who)} reviewed`)
      await page.getByTestId('open-mine').click()
      await page.getByTestId('review-mine-title').waitFor()
      const call = page.getByTestId('review-call')
      const seen: string[] = []
      for (let i = 0; i < 2; i++) {
        const id = (await call.getAttribute('data-call-id'))!
        seen.push(id)
        for (const k of answers) await page.keyboard.press(k)
        await expect.poll(() => page.getByTestId('review-total').textContent()).toMatch(/\d/)
        await page.keyboard.press('r')
        await expect.poll(() => page.getByTestId('review-status-reviewed').getAttribute('aria-pressed')).toBe('true')
        await page.keyboard.press('u')
        await expect.poll(() => call.getAttribute('data-call-id')).not.toBe(id)
      }
      await expect.poll(() => page.getByTestId('review-mine-progress').textContent()).toBe(`2 of ${counts.get(who)} reviewed`)
      const mine = await invoke<{ items: Array<{ callId: string; reviewer: string; done: boolean }> }>(page, 'assignments.mine', {})
      expect(mine.items.every((i) => i.reviewer === who)).toBe(true)
      // The next unreviewed comes first, the two reviewed last.
      expect(mine.items[0]!.done).toBe(false)
      expect(mine.items.slice(-2).map((i) => [i.callId, i.done])).toEqual(seen.map((s) => [s, true]))
      if (who === 'ayse') await shot(page, '70-my-assignments-en')
    }
  })

  it('shows the lead the progress per reviewer and the per-agent chart in Insight', async () => {
    const { page } = app
    await reviewAs('lead')
    await page.getByTestId('nav-insight').click()
    const lead = page.getByTestId('lead-insight')
    await lead.waitFor({ timeout: 15_000 })
    for (const who of ['ayse', 'mehmet']) {
      const row = page.getByTestId('lead-progress').locator(`li[data-reviewer="${who}"]`)
      await expect.poll(() => row.getAttribute('data-reviewed')).toBe('2')
      expect(await row.getAttribute('data-assigned')).toBe(String(counts.get(who)))
    }
    expect(await page.getByTestId('lead-agent-field').textContent()).toContain('agentName')
    const agents = page.getByTestId('lead-agents')
    expect(Number(await agents.getAttribute('data-rows'))).toBeGreaterThan(0)
    expect(await agents.locator('canvas').count()).toBeGreaterThan(0)
    expect(await page.getByTestId('lead-reviewers').getAttribute('data-rows')).toBe('2')
    expect(await page.getByTestId('lead-failed').textContent()).toContain('KVKK')
    await lead.scrollIntoViewIfNeeded()
    await shot(page, '71-lead-view-en')
    // The first agent's row drills to that agent's scored calls in Search.
    await agents.getByTestId('lead-agents-table').locator('summary').click()
    const expected = Number(await agents.getByTestId('lead-agents-row').first().locator('td').nth(2).textContent())
    await agents.getByTestId('lead-agents-drill').first().click()
    const count = page.getByTestId('result-count')
    await expect.poll(() => count.getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
    await expect.poll(() => count.getAttribute('data-total'), { timeout: 15_000 }).toBe(String(expected))
  })
})
