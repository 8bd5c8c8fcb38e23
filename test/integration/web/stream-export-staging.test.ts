import { request as httpRequest, type IncomingMessage } from 'node:http'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAppController } from '../../../src/core/app/controller'
import type { AppController, Handlers } from '../../../src/core/app/host-ports'
import { silentLogger } from '../../../src/core/platform/node'
import { createDemoProvider } from '../../../src/host/demo'
import type { ExportProgress, SyncProgress } from '../../../src/shared/domain'
import { contract, type Request, type Response } from '../../../src/shared/ipc/contract'
import type { ChannelName, EventName } from '../../../src/shared/ipc/names'
import { createBrowserPlatform } from '../../../src/web/browser-host'
import { createDownloadStaging, type DownloadStaging } from '../../../src/web/downloads'
import { startWebServer, type WebServer } from '../../../src/web/server'
import { until } from '../../support/until'

// A CSV export streamed into the browser's download, through the controller on the browser
// mode's platform and the real server on 127.0.0.1: no staging folder is left behind (ended,
// cancelled, or with a sidecar once that was sent), and "done" names no file, since none was
// written.

let dataDir = ''
let staging: DownloadStaging
let controller: AppController
let server: WebServer
let port = 0
let cookie = ''
const events: Array<{ event: EventName; payload: unknown }> = []

async function call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
  const handler = controller.handlers[channel] as (r: unknown, ctx: { senderId: number }) => Promise<unknown>
  return contract[channel].response.parse(await handler(contract[channel].request.parse(request), { senderId: 1 })) as Response<C>
}

const ended = (exportId: string): Promise<ExportProgress> =>
  until(() =>
    events
      .filter((e) => e.event === 'export.progress')
      .map((e) => e.payload as ExportProgress)
      .find((p) => p.exportId === exportId && p.phase !== 'writing')
  )

function get(path: string): Promise<{ res: IncomingMessage; body: Buffer; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers: { host: `127.0.0.1:${port}`, cookie } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('close', () => resolve({ res, body: Buffer.concat(chunks), complete: res.complete }))
    })
    req.on('error', reject)
    req.end()
  })
}

/** The folders in the staging root: one per export still waiting to be sent. */
const stagedFolders = (): string[] => readdirSync(staging.root)

async function startCsv(extra: Partial<Request<'export.start'>> = {}): Promise<{ exportId: string; file: string; url: string }> {
  const r = await call('export.start', {
    selection: { kind: 'query', query: {} },
    format: 'csv',
    columns: ['callId', 'title'],
    analysisLayout: 'wide',
    ...extra
  })
  if (!r.started || !r.download) throw new Error('a CSV in browser mode is streamed')
  return { exportId: r.exportId, file: r.file, url: r.download.url }
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'callsight-stream-staging-'))
  writeFileSync(join(dataDir, 'index.html'), '<!doctype html><html><head><title>t</title></head><body></body></html>')
  staging = createDownloadStaging({ parent: dataDir })
  controller = createAppController(
    createBrowserPlatform({
      dataDir,
      logger: silentLogger,
      events: { emit: (event, payload) => void events.push({ event, payload }) },
      downloads: staging,
      demo: createDemoProvider({ options: { calls: 600, rateLimit: { requests: 6_000, perSeconds: 60 } } }),
      appVersion: '1.2.3-test',
      openExternal: async () => undefined
    })
  )
  server = await startWebServer({ handlers: {} as Handlers, rendererDir: dataDir, downloads: staging })
  port = Number(new URL(server.origin).port)
  const launch = new URL(server.issueLaunchUrl())
  const exchange = await get(launch.pathname + launch.search)
  cookie = String(exchange.res.headers['set-cookie']?.[0]).split(';')[0]!

  await call('session.startDemo', {})
  const now = Date.now()
  const { runId } = await call('sync.start', { scope: { from: now - 90 * 86_400_000, to: now }, mode: 'full' })
  const synced = await until(() =>
    events
      .filter((e) => e.event === 'sync.progress')
      .map((e) => e.payload as SyncProgress)
      .find((p) => p.runId === runId && (p.phase === 'done' || p.phase === 'failed' || p.phase === 'cancelled'))
  )
  expect(synced.phase).toBe('done')
}, 120_000)

afterAll(async () => {
  await server?.close()
  await controller?.dispose()
  staging?.close()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

describe('a streamed CSV export in browser mode', () => {
  it('leaves no staging folder, and its "done" names no file', async () => {
    const s = await startCsv()
    expect(existsSync(dirname(s.file))).toBe(false)
    const got = await get(s.url)
    expect(got.complete).toBe(true)
    expect(got.body.toString('utf8').split('\n').length).toBeGreaterThan(100)
    const done = await ended(s.exportId)
    expect(done.phase).toBe('done')
    expect(done.file).toBeNull()
    expect(done.download).toBeUndefined()
    expect(existsSync(s.file)).toBe(false)
    expect(stagedFolders()).toEqual([])
  })

  it('leaves no staging folder when cancelled before the browser asked', async () => {
    const s = await startCsv()
    await call('export.cancel', { exportId: s.exportId })
    expect((await ended(s.exportId)).phase).toBe('cancelled')
    expect((await get(s.url)).res.statusCode).toBe(404)
    expect(stagedFolders()).toEqual([])
  })

  it('stages a sidecar asked for in a folder of its own, which goes once the sidecar was sent', async () => {
    const s = await startCsv({ sidecar: true })
    expect((await get(s.url)).complete).toBe(true)
    const done = await ended(s.exportId)
    expect(done).toMatchObject({ phase: 'done', file: null, metaDownload: { name: expect.stringMatching(/\.csv\.meta\.json$/) } })
    const meta = staging.take(done.metaDownload!.url.slice('/downloads/'.length))!
    expect(JSON.parse(readFileSync(meta.file, 'utf8'))).toMatchObject({ format: 'csv' })
    expect(stagedFolders()).toHaveLength(1)
    staging.discard(meta)
    expect(stagedFolders()).toEqual([])
  })
})
