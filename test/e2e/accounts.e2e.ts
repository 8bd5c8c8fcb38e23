import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { accountIdFor } from '../../src/core/app/account-runtime'
import type { CallsightApi } from '../../src/shared/ipc/contract'
import { startService, type RunningService } from '../../src/reference-service'
import { englishOnScreen, englishVocabulary } from './support/english-words'
import { launchApp, type LaunchedApp } from './support/harness'

// The account switcher, in English and in Turkish: two reference services on 127.0.0.1, one
// account on each. Sign in to the first, sync, add the second from the status bar's account
// menu, sync it, then switch back and forth (by mouse and by keyboard): the results follow the
// active account's own cache, nobody is asked for a password again, and the search text of
// one account does not carry over to the other.

type PageGlobal = { api: CallsightApi }

const LANGUAGES = [
  {
    lang: 'en',
    env: { LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' },
    locale: 'en-US',
    addTitle: 'Add an account',
    switchLabel: 'Switch account'
  },
  {
    lang: 'tr',
    env: { LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
    locale: 'tr-TR',
    addTitle: 'Hesap ekleyin',
    switchLabel: 'Hesap değiştir'
  }
] as const

async function totalOf(page: Page): Promise<number> {
  const el = page.getByTestId('result-count')
  await expect.poll(() => el.getAttribute('data-state'), { timeout: 15_000 }).toBe('ready')
  return Number(await el.getAttribute('data-total'))
}

async function signIn(page: Page, url: string): Promise<void> {
  await page.getByTestId('signin-url').fill(url)
  await page.getByTestId('signin-username').fill('demo')
  await page.getByTestId('signin-password').fill('demo')
  await page.getByTestId('signin-submit').click()
  await page.getByTestId('results-grid').waitFor({ timeout: 60_000 })
}

/** A full sync of the last 90 days of the active account; the number of calls it stored, and its run. */
async function sync90(page: Page): Promise<{ calls: number; run: string }> {
  await page.getByTestId('nav-sync').click()
  await page.getByTestId('sync-date-90').click()
  await page.getByTestId('sync-start').click()
  const progress = page.getByTestId('sync-progress')
  await expect.poll(() => progress.getAttribute('data-phase'), { timeout: 90_000 }).toBe('done')
  const run = (await progress.getAttribute('data-run')) ?? ''
  expect(run).not.toBe('')
  await page.getByTestId('nav-search').click()
  // The list reads again once the sync stored calls; until then it may still show the count
  // from before. Wait until it shows every call the cache holds (the sync kept answered
  // calls, which is what the list shows by default).
  const cached = await page.evaluate(async () => {
    const r = await (globalThis as unknown as PageGlobal).api.invoke('cache.info', {})
    return r.ok ? r.value.calls : -1
  })
  expect(cached).toBeGreaterThan(0)
  await expect.poll(() => totalOf(page), { timeout: 30_000 }).toBe(cached)
  return { calls: cached, run }
}

/** The run the sync screen's panel shows (none: ''), then back to the search screen. */
async function shownRun(page: Page): Promise<string> {
  await page.getByTestId('nav-sync').click()
  await page.getByTestId('sync-scopes').waitFor()
  const progress = page.getByTestId('sync-progress')
  const run = (await progress.count()) > 0 ? ((await progress.getAttribute('data-run')) ?? '') : ''
  await page.getByTestId('nav-search').click()
  await page.getByTestId('results-grid').waitFor()
  return run
}

async function switchByMouse(page: Page, id: string): Promise<void> {
  await page.getByTestId('account-switcher').click()
  await page.getByTestId(`switch-account-${id}`).click()
}

/** Opens the account menu from the keyboard and picks `id` with the arrows and Enter. */
async function switchByKeyboard(page: Page, id: string): Promise<void> {
  await page.getByTestId('account-switcher').focus()
  await page.keyboard.press('Enter')
  const menu = page.locator('#account-menu')
  await menu.waitFor()
  for (let i = 0; i < 6; i++) {
    const focused = menu.locator('li[data-p-focused="true"]')
    if ((await focused.count()) > 0 && (await focused.getByTestId(`switch-account-${id}`).count()) > 0) break
    await page.keyboard.press('ArrowDown')
  }
  await page.keyboard.press('Enter')
  await expect.poll(() => menu.count()).toBe(0)
}

async function activeAccountId(page: Page): Promise<string | null> {
  return page.evaluate(async () => {
    const r = await (globalThis as unknown as PageGlobal).api.invoke('session.get', {})
    return r.ok ? (r.value.account?.id ?? null) : null
  })
}

describe('account switcher', () => {
  let first: RunningService
  let second: RunningService

  beforeAll(async () => {
    const base = { tz: 'Europe/Istanbul', rateLimit: { requests: 6_000, perSeconds: 60 }, quiet: true }
    first = await startService({ ...base, calls: 600, seed: 11 })
    second = await startService({ ...base, calls: 250, seed: 12 })
  })
  afterAll(async () => {
    await first?.stop()
    await second?.stop()
  })

  for (const L of LANGUAGES) {
    describe(`in ${L.lang}`, () => {
      let app: LaunchedApp
      const ids = { first: '', second: '' }
      const totals = { first: 0, second: 0 }
      const runs = { first: '', second: '' }

      beforeAll(async () => {
        app = await launchApp({ serve: { env: L.env }, locale: L.locale, viewport: { width: 1440, height: 900 } })
        ids.first = accountIdFor(first.url, 'demo')
        ids.second = accountIdFor(second.url, 'demo')
      })
      afterAll(async () => {
        await app?.close()
      })

      it('signs in to the first account and syncs it', async () => {
        const { page } = app
        await page.getByTestId('signin-form').waitFor({ timeout: 20_000 })
        await signIn(page, first.url)
        ;({ calls: totals.first, run: runs.first } = await sync90(page))
        expect(totals.first).toBeGreaterThan(0)
        await page.getByTestId('search-input').fill('iptal')
        await expect.poll(() => page.getByTestId('result-count').getAttribute('data-query')).toBe('iptal')
      })

      it('adds a second account from the status bar, which starts with its own empty search', async () => {
        const { page } = app
        const switcher = page.getByTestId('account-switcher')
        expect(await switcher.getAttribute('aria-label')).toContain(L.switchLabel)
        await switcher.click()
        await page.getByTestId('account-add').click()
        await expect.poll(() => page.locator('#signin-title').textContent()).toBe(L.addTitle)
        // The form is empty (not the first account's address) and offers the way back.
        expect(await page.getByTestId('signin-url').inputValue()).toBe('')
        await page.getByTestId('signin-cancel').waitFor()
        await app.screenshot(`accounts-add-${L.lang}`)
        if (L.lang === 'tr') expect(await englishOnScreen(page, englishVocabulary())).toEqual([])
        await signIn(page, second.url)
        expect(await activeAccountId(page)).toBe(ids.second)
        expect(await page.getByTestId('search-input').inputValue()).toBe('')
        ;({ calls: totals.second, run: runs.second } = await sync90(page))
        expect(totals.second).toBeGreaterThan(0)
        expect(totals.second).not.toBe(totals.first)
      })

      it('switches back and forth without a sign-in; the results follow the account', async () => {
        const { page } = app
        await page.getByTestId('account-switcher').click()
        const menu = page.locator('#account-menu')
        await menu.waitFor()
        expect(await page.getByTestId(`switch-account-${ids.second}`).getAttribute('data-active')).toBe('true')
        await app.screenshot(`accounts-menu-${L.lang}`)
        if (L.lang === 'tr') expect(await englishOnScreen(page, englishVocabulary())).toEqual([])
        await page.keyboard.press('Escape')
        await expect.poll(() => menu.count()).toBe(0)

        await switchByMouse(page, ids.first)
        await expect.poll(() => activeAccountId(page)).toBe(ids.first)
        await page.getByTestId('results-grid').waitFor()
        await expect.poll(() => totalOf(page), { timeout: 15_000 }).toBe(totals.first)
        // Not the text typed for this account before the switch, nor any other's.
        expect(await page.getByTestId('search-input').inputValue()).toBe('')
        // The sync screen shows this account's last run, not the one just run on the other.
        expect(await shownRun(page)).toBe(runs.first)

        await switchByKeyboard(page, ids.second)
        await expect.poll(() => activeAccountId(page)).toBe(ids.second)
        await expect.poll(() => totalOf(page), { timeout: 15_000 }).toBe(totals.second)
        await page.getByTestId('results-grid').waitFor()
        expect(await shownRun(page)).toBe(runs.second)
      })

      it('lists both accounts signed in, and never hands a token to the page', async () => {
        const { page } = app
        const reply = await page.evaluate(async () =>
          JSON.stringify(await (globalThis as unknown as PageGlobal).api.invoke('accounts.list', {}))
        )
        const list = JSON.parse(reply) as { ok: true; value: { accounts: Array<{ account: { id: string }; status: string }> } }
        expect(list.value.accounts.map((e) => [e.account.id, e.status]).sort()).toEqual(
          [
            [ids.first, 'signedIn'],
            [ids.second, 'signedIn']
          ].sort()
        )
        expect(reply).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./)
        expect(reply.toLowerCase()).not.toContain('token')
        expect(app.pageErrors).toEqual([])
      })
    })
  }
})
