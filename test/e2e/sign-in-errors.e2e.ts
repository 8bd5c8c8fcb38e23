import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startService, type RunningService } from '../../src/reference-service'
import { launchApp, type LaunchedApp } from './support/harness'

// Sign-in failures a person must be able to act on: a wrong password, and a tenant whose IP
// allow list does not include this workstation. `callsight serve` talks to real reference
// services on 127.0.0.1.

describe('sign-in error messages', () => {
  let open: RunningService
  let restricted: RunningService
  let app: LaunchedApp

  beforeAll(async () => {
    ;[open, restricted] = await Promise.all([
      startService({ calls: 50, quiet: true }),
      // Only a documentation address is allowed: 127.0.0.1 is refused with 403.
      startService({ calls: 50, quiet: true, allowIps: ['192.0.2.10/32'] })
    ])
    app = await launchApp()
  })
  afterAll(async () => {
    await app?.close()
    await Promise.all([open?.stop(), restricted?.stop()])
  })

  async function signIn(baseUrl: string, username: string, password: string): Promise<void> {
    const { page } = app
    await page.getByTestId('signin-url').fill(baseUrl)
    await page.getByTestId('signin-username').fill(username)
    await page.getByTestId('signin-password').fill(password)
    await page.getByTestId('signin-submit').click()
  }

  it('says the user name or password is wrong, and clears the password', async () => {
    const { page } = app
    await page.getByTestId('signin-form').waitFor({ timeout: 20_000 })
    await signIn(open.url, 'demo', 'not-the-password')
    const error = page.getByTestId('signin-error')
    await error.waitFor({ timeout: 20_000 })
    expect(await error.getAttribute('data-code')).toBe('InvalidCredentials')
    expect(await error.textContent()).toContain('user name or password is wrong')
    expect(await page.getByTestId('signin-password').inputValue()).toBe('')
    await app.screenshot('20-sign-in-wrong-password')
  })

  it('says the IP is not allowed and what to ask the operators', async () => {
    const { page } = app
    await signIn(restricted.url, 'demo', 'demo')
    const error = page.getByTestId('signin-error')
    await expect.poll(() => error.getAttribute('data-code'), { timeout: 20_000 }).toBe('IpNotAllowed')
    const text = (await error.textContent()) ?? ''
    expect(text).toContain('operators')
    expect(text).toContain('IP address or range')
    await app.screenshot('21-sign-in-ip-not-allowed')
  })

  it('ran without page errors or CSP violations', () => {
    expect(app.pageErrors).toEqual([])
  })
})
