import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openBrowser } from './support/harness'
import { startServeProcess, type ServeProcess } from './support/serve-process'

// What a newcomer meets in browser mode: the plain address serve prints on its second line
// opens a page that says how to get in (not a bare 403), in the browser's language, and the
// address stays the same from one start to the next on the same data folder.

describe('browser mode for a newcomer', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'callsight-newcomer-e2e-'))
  let serve: ServeProcess | null = null
  afterAll(async () => {
    await serve?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('answers the plain address with how to get in, holding no key and no app', async () => {
    serve = await startServeProcess({ dataDir })
    const origin = serve.origin
    await expect.poll(() => serve!.stderr(), { timeout: 10_000 }).toContain(`Callsight is running at ${origin}`)
    for (const [locale, words] of [
      ['en-US', 'press Enter'],
      ['tr-TR', "Enter'a basın"]
    ] as const) {
      const browser = await openBrowser({ locale })
      try {
        const page = await browser.context.newPage()
        const reply = await page.goto(serve.origin)
        expect(reply?.status()).toBe(403)
        const text = (await page.locator('body').textContent()) ?? ''
        expect(text).toContain(words)
        expect(await page.locator('section').first().getAttribute('lang')).toBe(locale.slice(0, 2))
        expect(await page.content()).not.toContain(serve.launchKey)
        expect(await page.locator('script').count()).toBe(0)
        await page.screenshot({ path: join(tmpdir(), `39b-${locale}-bare-address.png`) })
      } finally {
        await browser.close()
      }
    }
  })

  it('listens on the same port when started again on the same data folder', async () => {
    const port = serve!.port
    await serve!.stop()
    serve = await startServeProcess({ dataDir })
    expect(serve.port).toBe(port)
  })
})

describe("language 'System' in browser mode", () => {
  it("follows the browser's language, not the server's locale", async () => {
    const { launchApp } = await import('./support/harness')
    const app = await launchApp({
      serve: { args: ['--demo'], env: { LANG: 'en_US.UTF-8', LC_ALL: 'en_US.UTF-8' } },
      locale: 'tr-TR',
      viewport: { width: 1280, height: 800 }
    })
    try {
      await app.page.getByTestId('results-grid').waitFor({ timeout: 30_000 })
      await expect.poll(() => app.page.getByTestId('nav-sync').textContent(), { timeout: 10_000 }).toContain('Eşitleme')
      expect(app.pageErrors).toEqual([])
    } finally {
      await app.close()
    }
  })
})
