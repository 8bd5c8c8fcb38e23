import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openBrowser, watchErrors } from './support/harness'
import { startServeProcess, type ServeProcess } from './support/serve-process'

// `callsight serve` opening the browser itself, with a stand-in `xdg-open` first on PATH that
// writes down the arguments it was given. Every user of the machine can read a process's
// command line, so the opener must get no launch key: it gets a private redirect file that
// leads to a working session, and the file is gone once the key is spent.

function status(port: number, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('callsight serve opening the browser', () => {
  const bin = mkdtempSync(join(tmpdir(), 'callsight-opener-'))
  const record = join(bin, 'opened.txt')
  let serve: ServeProcess

  beforeAll(async () => {
    writeFileSync(join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$0" "$@" > '${record}'\n`)
    chmodSync(join(bin, 'xdg-open'), 0o755)
    serve = await startServeProcess({ open: true, env: { PATH: `${bin}:${process.env['PATH'] ?? ''}`, DISPLAY: ':99' } })
  })
  afterAll(async () => {
    await serve?.stop()
    rmSync(bin, { recursive: true, force: true })
  })

  it('hands the opener a 0600 redirect file, not the key, and the file leads to a working session', async () => {
    await expect.poll(() => existsSync(record), { timeout: 10_000 }).toBe(true)
    const argv = readFileSync(record, 'utf8').trim().split('\n')
    expect(argv).toHaveLength(2)
    expect(argv.join(' ')).not.toContain(serve.launchKey)
    const target = argv[1] ?? ''
    expect(target).toMatch(/^file:\/\/\/.*\/open-callsight\.html$/)
    const file = fileURLToPath(target)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(dirname(file)).mode & 0o777).toBe(0o700)
    await expect.poll(() => serve.stderr(), { timeout: 10_000 }).toContain('opened in your browser')

    const browser = await openBrowser()
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage())
      const errors = watchErrors(page)
      await page.goto(target)
      await page.waitForURL(`${serve.origin}/#/signin`, { timeout: 30_000 })
      await page.getByTestId('signin-form').waitFor({ timeout: 20_000 })
      expect(
        await page.evaluate(() => (window as unknown as { api: { invoke(c: string): Promise<unknown> } }).api.invoke('app.info'))
      ).toMatchObject({
        ok: true
      })
      expect(errors).toEqual([])
    } finally {
      await browser.close()
    }
    // Spent: the file is gone, and the same key printed on the terminal is refused.
    await expect.poll(() => existsSync(dirname(file)), { timeout: 5_000 }).toBe(false)
    expect(await status(serve.port, `/?key=${serve.launchKey}`)).toBe(403)
  })

  it('opens a new redirect file for the new address Enter asks for, and removes it when serve stops', async () => {
    rmSync(record)
    const url = await serve.newLaunchUrl()
    await expect.poll(() => existsSync(record), { timeout: 10_000 }).toBe(true)
    const target = readFileSync(record, 'utf8').trim().split('\n')[1] ?? ''
    const key = new URL(url).searchParams.get('key') ?? ''
    expect(key).toMatch(/^[\w-]{43}$/)
    expect(target).not.toContain(key)
    const file = fileURLToPath(target)
    expect(readFileSync(file, 'utf8')).toContain(url)
    expect(await serve.stop()).toBe(0)
    expect(existsSync(dirname(file))).toBe(false)
  })
})
