import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openBrowser, saveScreenshot, watchErrors } from './support/harness'

// `npm start` where Electron cannot run (as on the build machine: no binary, no GitHub): one
// line says so, then the app starts in browser mode — headless here, so the address is
// printed and nothing is opened — with the desktop app's data folder. The screenshot is
// taken from the address `npm start` printed.

const URL_LINE = /^http:\/\/127\.0\.0\.1:\d+\/\?key=[\w-]+$/

describe('npm start without Electron', () => {
  const home = mkdtempSync(join(tmpdir(), 'callsight-npm-start-'))
  let child: ReturnType<typeof spawn>
  const lines: string[] = []
  let stderr = ''
  let url = ''
  let exited: Promise<number | null>

  beforeAll(async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // No Electron, whatever this machine has: an empty folder where the binary would be.
      ELECTRON_OVERRIDE_DIST_PATH: join(home, 'no-electron'),
      // The desktop app's userData lives here on Linux: $XDG_CONFIG_HOME/Callsight.
      XDG_CONFIG_HOME: join(home, 'config'),
      TZ: 'Europe/Istanbul'
    }
    delete env['DISPLAY']
    delete env['WAYLAND_DISPLAY']
    child = spawn(process.execPath, [resolve('scripts/start.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    exited = new Promise((r) => child.once('exit', (code) => r(code)))
    url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start printed no address in 150 s:\n${lines.join('\n')}\n${stderr}`)), 150_000)
      createInterface({ input: child.stdout! }).on('line', (line) => {
        lines.push(line)
        if (URL_LINE.test(line)) {
          clearTimeout(timer)
          resolveUrl(line)
        }
      })
      void exited.then((code) => reject(new Error(`npm start exited (${code}):\n${lines.join('\n')}\n${stderr}`)))
    })
  }, 180_000)

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL')
    rmSync(home, { recursive: true, force: true })
  })

  it('says in one line that it runs in the browser instead, then prints the address', async () => {
    const notes = lines.filter((l) => l.startsWith('callsight: '))
    expect(notes).toHaveLength(1)
    // The build is quiet: the address is not pushed off the screen by its output.
    expect(lines.length).toBeLessThanOrEqual(4)
    expect(notes[0]).toContain("Electron's binary is not installed")
    expect(notes[0]).toContain('runs in your browser instead')
    expect(lines.indexOf(notes[0] ?? '')).toBeLessThan(lines.indexOf(url))
    // Headless: nothing was opened, and serve said where to go.
    await expect.poll(() => stderr, { timeout: 10_000 }).toContain('open the address above in a browser on this computer')
  })

  it('serves Callsight at the printed address, with the desktop app data folder', async () => {
    const dataDir = join(home, 'config', 'Callsight')
    expect(existsSync(join(dataDir, 'serve.lock'))).toBe(true)
    const browser = await openBrowser({ viewport: { width: 1280, height: 800 } })
    try {
      const page = browser.context.pages()[0] ?? (await browser.context.newPage())
      const errors = watchErrors(page)
      await page.goto(url)
      await page.getByTestId('signin-demo').waitFor({ timeout: 30_000 })
      const file = await saveScreenshot(page, 'npm-start')
      expect(existsSync(file)).toBe(true)
      expect(errors).toEqual([])
    } finally {
      await browser.close()
    }
  })

  it('stops cleanly when npm start is stopped, releasing the data folder', async () => {
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    expect(existsSync(join(home, 'config', 'Callsight', 'serve.lock'))).toBe(false)
  })
})
