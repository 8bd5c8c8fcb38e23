/**
 * The renderer's budgets, in Debian's headless Chromium over the built app (out/renderer):
 *   - initial JavaScript (the entry chunk and what it imports statically) ≤ 1.5 MB;
 *   - first result rows painted ≤ 150 ms after the query's reply;
 *   - renderer JS heap < 300 MB after scrolling through 1,000,000 results.
 * window.api is a synthetic in-page source of 1,000,000 rows, so what is measured is the
 * renderer alone (IPC and SQLite costs are the search section's). The baseline for paint
 * latency is two animation frames with nothing to do: the floor of the measurement.
 */
import { readFileSync, existsSync, statSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { extname, join, normalize, resolve } from 'node:path'
import { chromium } from 'playwright-core'
import { median, type BenchFn, type BenchRow } from './types'

const CHROMIUM = process.env['CALLSIGHT_CHROMIUM'] ?? '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]
const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' }

/** The JavaScript a cold start must load before the app can run: entry + modulepreloads. */
export function initialScripts(indexHtml: string): string[] {
  const files = new Set<string>()
  for (const m of indexHtml.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)) files.add(m[1] ?? '')
  for (const m of indexHtml.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) files.add(m[1] ?? '')
  return [...files].filter((f) => f.endsWith('.js'))
}

function serve(root: string): Promise<{ server: Server; url: string }> {
  return new Promise((done) => {
    const server = createServer((req, res) => {
      const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname))
      const file = join(root, path === '/' ? 'index.html' : path)
      if (!file.startsWith(root) || !existsSync(file) || statSync(file).isDirectory()) {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file))
    })
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address ? address.port : 0
      done({ server, url: `http://127.0.0.1:${port}/` })
    })
  })
}

/** A window.api answering the channels the search screen uses, over `total` generated rows. */
function syntheticApi(total: number): string {
  return `(() => {
  const total = ${total}, start = Date.UTC(2026, 0, 1)
  const words = ['fatura', 'iade', 'İstanbul', 'ısınma', 'kargo', 'gecikme', 'şikayet', 'abonelik', 'internet', 'modem']
  const row = (i) => ({ callId: 'C' + (100000000 + i), callAt: start + (total - i) * 60000, callDate: '', title: 'Müşteri ' + words[i % 10] + ' hakkında arıyor ' + i,
    summaryPreview: 'Müşteri ' + words[(i * 7) % 10] + ' sorununu bildirdi, telefon [MASKED] üzerinden geri dönüş istedi; kayıt açıldı ve ilgili birime aktarıldı.', analysisCount: i % 5 })
  const count = (q) => (q.text ? Math.floor(total / 7) : total)
  const account = { id: 'a', label: 'Bench', baseUrl: 'http://127.0.0.1:1', username: 'bench', zone: 'Europe/Istanbul', rateLimit: { requests: 60, perSeconds: 60 }, demo: true }
  const settings = { accounts: [account], activeAccountId: 'a', displayZone: 'system', language: 'en', theme: 'light',
    sync: { lookbackHours: 48, includeAnalysis: true, results: 'answered', presetDays: 30 },
    export: { format: 'csv', columns: ['callId'], analysisLayout: 'wide' }, savedSearches: [] }
  const answers = {
    'app.info': () => ({ version: 'bench', electron: null, platform: 'linux', locale: 'en-US', systemZone: 'Europe/Istanbul', darkMode: false }),
    'settings.get': () => settings,
    'session.get': () => ({ status: 'signedIn', account, tokensPersisted: true, notice: null }),
    'cache.info': () => ({ path: null, sizeBytes: 0, calls: total, lastSyncAt: Date.now() }),
    'catalog.callTypes': () => [], 'search.analysisKeys': () => [],
    'sync.scopes': () => ({ scopes: [], active: null }),
    'search.count': (r) => ({ total: count(r.query) }),
    'search.page': (r) => { const rows = []; for (let i = r.offset; i < Math.min(count(r.query), r.offset + r.limit); i++) rows.push(row(i)); return { offset: r.offset, rows } }
  }
  window.__replyAt = null
  window.api = Object.freeze({
    invoke: async (channel, request) => {
      const f = answers[channel]
      if (!f) return { ok: false, error: { code: 'Internal', message: channel + ' is not part of the benchmark' } }
      const value = f(request)
      if (channel === 'search.page' && request.offset === 0) window.__replyAt = performance.now()
      return { ok: true, value }
    },
    on: () => () => undefined
  })
})()`
}

/** In the page: set the query text, then time reply → first row of that query painted. */
const PAINT_AFTER_REPLY = `async (text) => {
  window.__replyAt = null
  const input = document.querySelector('[data-testid=search-input]')
  input.value = text
  input.dispatchEvent(new Event('input', { bubbles: true }))
  const began = performance.now()
  while (performance.now() - began < 10000) {
    await new Promise((r) => requestAnimationFrame(r))
    const shown = document.querySelector('[data-testid=result-count]')?.getAttribute('data-query')
    if (window.__replyAt !== null && shown === text && document.querySelector('[data-testid=row-0][data-call-id]')) {
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
      return performance.now() - window.__replyAt
    }
  }
  return -1
}`
const TWO_FRAMES = `async () => { const t = performance.now(); await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))); return performance.now() - t }`

export const run: BenchFn = async (ctx) => {
  const root = resolve(process.env['CALLSIGHT_RENDERER_DIR'] ?? 'out/renderer')
  const indexFile = join(root, 'index.html')
  if (!existsSync(indexFile)) throw new Error(`${indexFile} is missing: build the renderer first (npx electron-vite build).`)
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y --no-install-recommends chromium`)

  const rows: BenchRow[] = []
  const scripts = initialScripts(readFileSync(indexFile, 'utf8'))
  const initialBytes = scripts.reduce((n, f) => n + statSync(join(root, f)).size, 0)
  rows.push({
    metric: 'initial JavaScript',
    value: Math.round(initialBytes / 1000),
    unit: 'kB',
    target: 1500,
    targetKind: 'max',
    note: scripts.join(', ')
  })

  const total = ctx.quick ? 200_000 : 1_000_000
  const { server, url } = await serve(root)
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, headless: true })
  try {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, timezoneId: 'Europe/Istanbul' })
    await context.addInitScript({ content: syntheticApi(total) })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`${url}index.html#/search`)
    await page.waitForSelector('[data-testid=row-0][data-call-id]', { timeout: 30_000 })
    const cdp = await context.newCDPSession(page)
    await cdp.send('Performance.enable')
    const heapMb = async (): Promise<number> => {
      await cdp.send('HeapProfiler.collectGarbage')
      const { metrics } = await cdp.send('Performance.getMetrics')
      return (metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? NaN) / 1048576
    }

    const queries = ['fatura', 'iade', 'kargo', 'modem', 'ödeme', 'internet', 'İstanbul', 'abonelik', 'gecikme', 'şikayet', 'ısınma']
    const paint: number[] = []
    const floor: number[] = []
    for (const q of ctx.quick ? queries.slice(0, 4) : queries) {
      paint.push(await page.evaluate(`(${PAINT_AFTER_REPLY})(${JSON.stringify(q)})`))
      floor.push(await page.evaluate(`(${TWO_FRAMES})()`))
    }
    if (paint.some((p) => p < 0)) throw new Error('The results never painted for a query.')
    const p50 = median(paint)
    const base = median(floor)
    rows.push({
      metric: 'first rows painted after the reply (p50)',
      value: +p50.toFixed(1),
      unit: 'ms',
      baseline: +base.toFixed(1),
      ratio: +(p50 / base).toFixed(2),
      target: 150,
      targetKind: 'max',
      note: `${paint.length} queries; baseline = two empty frames; ratio = value / baseline`
    })
    rows.push({
      metric: 'first rows painted after the reply (max)',
      value: +Math.max(...paint).toFixed(1),
      unit: 'ms',
      target: 150,
      targetKind: 'max'
    })

    await page.evaluate(`(${PAINT_AFTER_REPLY})('')`)
    const before = await heapMb()
    const jumps = ctx.quick ? 60 : 400
    const began = performance.now()
    for (let i = 0; i <= jumps; i++) {
      await page.$eval(
        '[data-testid=results-grid]',
        (el, f) => {
          const e = el as unknown as { scrollTop: number; scrollHeight: number; clientHeight: number }
          e.scrollTop = (e.scrollHeight - e.clientHeight) * f
        },
        i / jumps
      )
      await page.waitForTimeout(16)
      if (i % 40 === 0) {
        await page.mouse.move(700, 500)
        for (let k = 0; k < 10; k++) await page.mouse.wheel(0, 600)
      }
    }
    const scrollSeconds = (performance.now() - began) / 1000
    await page.waitForSelector(`[data-testid=row-${total - 1}][data-call-id]`, { timeout: 10_000 })
    const after = await heapMb()
    const domRows = await page.$$eval('.results-row', (r) => r.length)
    rows.push({
      metric: `renderer JS heap after scrolling ${total.toLocaleString('en')} results`,
      value: +after.toFixed(1),
      unit: 'MB',
      baseline: +before.toFixed(1),
      ratio: +(after / before).toFixed(2),
      target: 300,
      targetKind: 'max',
      note: `baseline = heap at the top of the list; ${jumps} jumps + wheel in ${scrollSeconds.toFixed(1)} s`
    })
    rows.push({ metric: 'result rows in the DOM at the end', value: domRows, unit: 'rows' })
    if (errors.length > 0) throw new Error(`Page errors: ${errors.join('; ')}`)
    ctx.log(`paint p50 ${p50.toFixed(1)} ms, heap ${before.toFixed(1)} → ${after.toFixed(1)} MB, ${domRows} rows in the DOM`)
  } finally {
    await browser.close()
    server.close()
  }
  return { name: 'renderer', rows }
}
