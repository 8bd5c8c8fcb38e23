import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import type { EventSink, Handlers } from '../../../src/core/app/platform'
import type { Logger } from '../../../src/core/platform'
import { startBridge, type Bridge } from './bridge'
import { bridgeInitScript } from './init-script'

/**
 * Runs the built renderer (out/renderer, from `npx electron-vite build`) in Debian's
 * headless Chromium, with window.api served by the bridge: the whole app except the
 * Electron shell itself. Builds nothing.
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
/** CALLSIGHT_RENDERER_DIR points at another build of the renderer (e.g. a temporary one). */
export const RENDERER_DIR = resolve(process.env['CALLSIGHT_RENDERER_DIR'] ?? 'out/renderer')

export interface LaunchOptions {
  /** The controller's handlers, or a factory given the bridge's event sink. */
  handlers: Handlers | ((events: EventSink) => Handlers)
  rendererDir?: string
  /** Appended to the app URL, e.g. '#/search'. */
  route?: string
  locale?: string
  timezoneId?: string
  colorScheme?: 'light' | 'dark'
  viewport?: { width: number; height: number }
  logger?: Logger
}

export interface LaunchedApp {
  page: Page
  context: BrowserContext
  bridge: Bridge
  /** The app's URL (the bridge's origin). */
  url: string
  /** Uncaught page errors and console errors (CSP violations land here), for assertions. */
  pageErrors: string[]
  /** Saves test/e2e/screenshots/<name>.png and returns its path. */
  screenshot(name: string): Promise<string>
  close(): Promise<void>
}

export async function launchApp(opts: LaunchOptions): Promise<LaunchedApp> {
  const rendererDir = opts.rendererDir ?? RENDERER_DIR
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error(`${rendererDir}/index.html is missing: run \`npx electron-vite build\` first.`)
  }
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`)
  }

  const bridge = await startBridge({ handlers: opts.handlers, staticRoot: rendererDir, ...(opts.logger ? { logger: opts.logger } : {}) })
  const userDataDir = mkdtempSync(join(tmpdir(), 'callsight-e2e-profile-'))
  let context: BrowserContext | null = null
  const cleanUp = async (): Promise<void> => {
    await context?.close().catch(() => undefined)
    await bridge.close().catch(() => undefined)
    rmSync(userDataDir, { recursive: true, force: true })
  }

  try {
    // A persistent context is how Playwright takes a user-data dir: a fresh one per launch.
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 60_000,
      locale: opts.locale ?? 'en-US',
      timezoneId: opts.timezoneId ?? 'Europe/Istanbul',
      colorScheme: opts.colorScheme ?? 'light',
      viewport: opts.viewport ?? { width: 1280, height: 800 }
    })
    await context.addInitScript({ content: bridgeInitScript(bridge) })

    const page = context.pages()[0] ?? (await context.newPage())
    const pageErrors: string[] = []
    page.on('pageerror', (e) => pageErrors.push(`pageerror: ${e.message}`))
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(`console: ${m.text()}`)
    })

    const url = `${bridge.url}/${opts.route ?? ''}`
    await page.goto(url, { waitUntil: 'load', timeout: 30_000 })
    await bridge.waitForEventClients(1)

    const live = context
    return {
      page,
      context: live,
      bridge,
      url,
      pageErrors,
      async screenshot(name: string): Promise<string> {
        mkdirSync(SCREENSHOT_DIR, { recursive: true })
        const file = join(SCREENSHOT_DIR, `${name.replace(/[^\w.-]+/g, '-')}.png`)
        await page.screenshot({ path: file, fullPage: true })
        return file
      },
      close: cleanUp
    }
  } catch (e) {
    await cleanUp()
    throw e
  }
}
