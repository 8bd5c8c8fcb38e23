import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CallsightApi } from '../../src/shared/ipc/contract'
import { launchApp, type LaunchedApp } from './support/harness'

// Analysts on a Turkish system get a Turkish app from the first screen; the language and the
// theme can be changed in Settings, take effect at once, and are remembered.

type PageGlobal = { api: CallsightApi }

describe('language and theme', () => {
  let app: LaunchedApp

  beforeAll(async () => {
    app = await launchApp({
      // A Turkish system: serve reads the language from the environment, like the desktop app from the OS.
      serve: { env: { LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' } },
      locale: 'tr-TR',
      viewport: { width: 1280, height: 800 }
    })
  })
  afterAll(async () => {
    await app?.close()
  })

  it('starts in Turkish on a Turkish system', async () => {
    const { page } = app
    await page.getByTestId('signin-demo').waitFor({ timeout: 20_000 })
    await page.getByRole('heading', { name: 'Çağrı servisine oturum açın' }).waitFor()
    expect(await page.locator('html').getAttribute('lang')).toBe('tr')
    await app.screenshot('30-sign-in-tr')
  })

  it('switches to English and to the dark theme in Settings, and remembers both', async () => {
    const { page } = app
    await page.getByTestId('signin-demo').click()
    await page.getByTestId('results-grid').waitFor({ timeout: 60_000 })
    await expect.poll(() => page.getByTestId('nav-search').textContent()).toContain('Arama')

    await page.getByTestId('nav-settings').click()
    await page.getByTestId('settings-language').getByText('English', { exact: true }).click()
    await expect.poll(() => page.getByTestId('nav-search').textContent()).toContain('Search')
    await app.screenshot('31-settings-en')

    await page.getByTestId('settings-theme').getByText('Dark', { exact: true }).click()
    await expect.poll(() => page.locator('html').getAttribute('class')).toContain('app-dark')
    // Fields turn dark too (after PrimeVue's short colour transition), their text stays readable.
    const field = page.getByTestId('settings-zone')
    await expect.poll(() => field.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(9, 9, 11)')
    expect(await field.evaluate((el) => getComputedStyle(el).color)).toBe('rgb(244, 244, 245)')
    await app.screenshot('32-settings-dark-en')

    const stored = await page.evaluate(() => (window as unknown as PageGlobal).api.invoke('settings.get', {}))
    expect(stored.ok && stored.value.language).toBe('en')
    expect(stored.ok && stored.value.theme).toBe('dark')
    expect(app.pageErrors).toEqual([])
  })
})
