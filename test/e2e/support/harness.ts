import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { startServeProcess, type ServeOptions, type ServeProcess } from './serve-process'

/**
 * The whole app as a user runs it without Electron: `callsight serve` (the built CLI as a
 * child process) and Debian's headless Chromium opening the address it printed. window.api
 * comes from the server's own client script, the session cookie from the launch key.
 */

export const CHROMIUM = process.env['CALLSIGHT_CHROMIUM'] ?? '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]
export const SCREENSHOT_DIR = resolve('test/e2e/screenshots')

export interface LaunchOptions {
  /** How `callsight serve` is started. */
  serve?: ServeOptions
  /** Appended to the app URL after sign-in to the server, e.g. '#/search'. */
  route?: string
  locale?: string
  timezoneId?: string
  colorScheme?: 'light' | 'dark'
  viewport?: { width: number; height: number }
  /**
   * A browser shared with other apps of the test (launchBrowser): this app gets a context of
   * its own in it (its own cookies and storage), instead of a Chromium of its own.
   */
  browser?: Browser
}

export interface LaunchedApp {
  page: Page
  context: BrowserContext
  serve: ServeProcess
  /** The app's origin (http://127.0.0.1:<port>). */
  url: string
  /** Uncaught page errors and console errors (CSP violations land here), for assertions. */
  pageErrors: string[]
  /** Saves test/e2e/screenshots/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>
  close(): Promise<void>
}

export async function openBrowser(
  opts: Pick<LaunchOptions, 'locale' | 'timezoneId' | 'colorScheme' | 'viewport'> = {}
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`)
  const userDataDir = mkdtempSync(join(tmpdir(), 'callsight-e2e-profile-'))
  try {
    // A persistent context is how Playwright takes a user-data dir: a fresh one per launch.
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 60_000,
      locale: opts.locale ?? 'en-US',
      timezoneId: opts.timezoneId ?? 'Europe/Istanbul',
      colorScheme: opts.colorScheme ?? 'light',
      viewport: opts.viewport ?? { width: 1280, height: 800 }
    })
    return {
      context,
      async close() {
        await context.close().catch(() => undefined)
        rmSync(userDataDir, { recursive: true, force: true })
      }
    }
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true })
    throw e
  }
}

/**
 * One Chromium for several apps of a test (several workstations): each launchApp given it
 * opens an isolated context, which costs far less than a browser process each.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`)
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 60_000 })
}

/** A context of a shared browser, with the same defaults as openBrowser. */
async function contextIn(
  browser: Browser,
  opts: Pick<LaunchOptions, 'locale' | 'timezoneId' | 'colorScheme' | 'viewport'>
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  const context = await browser.newContext({
    locale: opts.locale ?? 'en-US',
    timezoneId: opts.timezoneId ?? 'Europe/Istanbul',
    colorScheme: opts.colorScheme ?? 'light',
    viewport: opts.viewport ?? { width: 1280, height: 800 }
  })
  return { context, close: () => context.close().catch(() => undefined) }
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  const file = join(SCREENSHOT_DIR, `${name.replace(/[^\w.-]+/g, '-')}.png`)
  await page.screenshot({ path: file, fullPage: true })
  return file
}

/**
 * Picks an option of a single-choice Select and waits for its list to close. PrimeVue's Select
 * hands focus back to itself on a zero-delay timer after the pick, in the same turn as the list
 * closes; a `fill` started before that timer can lose its text to the Select (a CI run saw the
 * team password arrive empty this way).
 */
export async function pickOption(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('option', { name }).click()
  await page.getByRole('listbox').waitFor({ state: 'hidden' })
}

/** Collects page errors and console errors. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()}`)
  })
  return errors
}

export async function launchApp(opts: LaunchOptions = {}): Promise<LaunchedApp> {
  const serve = await startServeProcess(opts.serve)
  let browser: { context: BrowserContext; close(): Promise<void> } | null = null
  const cleanUp = async (): Promise<void> => {
    await browser?.close()
    await serve.stop()
  }
  try {
    browser = opts.browser ? await contextIn(opts.browser, opts) : await openBrowser(opts)
    const { context } = browser
    const page = context.pages()[0] ?? (await context.newPage())
    const pageErrors = watchErrors(page)

    // The page's event socket: opened by the client script before the renderer starts.
    const socket = page.waitForEvent('websocket', { predicate: (ws) => ws.url().endsWith('/events'), timeout: 30_000 })
    await page.goto(serve.launchUrl, { waitUntil: 'load', timeout: 30_000 })
    await socket
    if (opts.route) await page.goto(`${serve.origin}/${opts.route}`, { waitUntil: 'load', timeout: 30_000 })

    return {
      page,
      context,
      serve,
      url: serve.origin,
      pageErrors,
      screenshot: (name) => saveScreenshot(page, name),
      close: cleanUp
    }
  } catch (e) {
    await cleanUp()
    throw e
  }
}

/** Calls the app's own API from the page, as the renderer does; rejects with the error's message. */
export async function invokeInPage<T>(page: Page, channel: string, request: unknown): Promise<T> {
  return page.evaluate(
    async ([c, r]) => {
      const api = (
        globalThis as unknown as {
          api: { invoke(c: string, r: unknown): Promise<{ ok: boolean; value?: unknown; error?: { message: string } }> }
        }
      ).api
      const res = await api.invoke(c, r)
      if (!res.ok) throw new Error(res.error?.message)
      return res.value
    },
    [channel, request] as const
  ) as Promise<T>
}
