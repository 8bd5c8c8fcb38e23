import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ChannelName, EventName } from '../../../src/shared/ipc/names'
import { contract, type Request, type Response } from '../../../src/shared/ipc/contract'
import type { ExportProgress, SyncProgress } from '../../../src/shared/domain'
import { createAppController } from '../../../src/core/app/controller'
import type { AppController } from '../../../src/core/app/host-ports'
import { silentLogger } from '../../../src/core/platform/node'
import { createDemoProvider } from '../../../src/host/demo'
import { createDownloadStaging, type DownloadStaging } from '../../../src/web/downloads'
import { createBrowserPlatform, NOTICE_BROWSER_MODE } from '../../../src/web/browser-host'
import { until } from '../../support/until'

// The controller on the browser mode's platform, over a data folder the desktop app also uses:
// settings in electron-store's format, the desktop's token vault never touched, tokens in
// memory, and a finished export offered as a one-time download instead of a file the page names.

// The desktop app's sealed tokens for the very account browser mode signs in to: a vault over
// this file would drop them on sign-in (memory-only saves clear the stored copy).
const DESKTOP_VAULT = JSON.stringify(
  { 'tokens:demo': { v: 1, backend: 'electron-safestorage:gnome_libsecret', data: 'c2VhbGVk' } },
  null,
  '\t'
)

let dataDir = ''
let staging: DownloadStaging
let controller: AppController
const events: Array<{ event: EventName; payload: unknown }> = []

async function call<C extends ChannelName>(channel: C, request: Request<C>): Promise<Response<C>> {
  const handler = controller.handlers[channel] as (r: unknown, ctx: { senderId: number }) => Promise<unknown>
  return contract[channel].response.parse(await handler(contract[channel].request.parse(request), { senderId: 1 })) as Response<C>
}

const progress = <T>(event: EventName, pick: (p: T) => boolean): T | undefined =>
  events
    .filter((e) => e.event === event)
    .map((e) => e.payload as T)
    .find(pick)

beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'callsight-browser-platform-'))
  writeFileSync(join(dataDir, 'vault.json'), DESKTOP_VAULT)
  // Staged whole, as every format but a streamed CSV is (test/integration/web/stream-download.test.ts).
  staging = createDownloadStaging({ stream: false })
  const platform = createBrowserPlatform({
    dataDir,
    logger: silentLogger,
    events: { emit: (event, payload) => void events.push({ event, payload }) },
    downloads: staging,
    demo: createDemoProvider({ options: { calls: 600, rateLimit: { requests: 6_000, perSeconds: 60 } } }),
    appVersion: '1.2.3-test',
    openExternal: async () => undefined
  })
  controller = createAppController(platform)
})

afterAll(async () => {
  await controller?.dispose()
  staging?.close()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

describe('the controller in browser mode', () => {
  it('signs in with tokens in memory only, says so, and leaves the desktop vault alone', async () => {
    const state = await call('session.startDemo', {})
    expect(state).toMatchObject({ status: 'signedIn', tokensPersisted: false, notice: NOTICE_BROWSER_MODE, noticeCode: 'browserMode' })
    expect(readFileSync(join(dataDir, 'vault.json'), 'utf8')).toBe(DESKTOP_VAULT)
    // electron-store's format: what the desktop app reads.
    const settings = readFileSync(join(dataDir, 'settings.json'), 'utf8')
    expect(settings).toMatch(/^\{\n\t"/)
    expect(JSON.parse(settings)).toMatchObject({ activeAccountId: 'demo' })
    expect(await call('app.info', {})).toMatchObject({ version: '1.2.3-test', electron: null })
  })

  it('offers a finished export as a one-time download from its staging folder', async () => {
    const now = Date.now()
    const { runId } = await call('sync.start', { scope: { from: now - 90 * 86_400_000, to: now }, mode: 'full' })
    const synced = await until(() =>
      progress<SyncProgress>(
        'sync.progress',
        (p) => p.runId === runId && p.phase !== 'fetching' && p.phase !== 'planning' && p.phase !== 'waiting'
      )
    )
    expect(synced.phase).toBe('done')

    // One file by default: the sidecar is asked for on purpose (below, the export asks for it).
    const plain = await call('export.start', {
      selection: { kind: 'query', query: {} },
      format: 'csv',
      columns: ['callId'],
      analysisLayout: 'wide'
    })
    if (!plain.started) throw new Error('the browser mode has no dialog to cancel')
    const plainDone = await until(() =>
      progress<ExportProgress>('export.progress', (p) => p.exportId === plain.exportId && p.phase !== 'writing')
    )
    expect(plainDone.phase).toBe('done')
    expect(plainDone.metaDownload).toBeUndefined()
    staging.discard(staging.take(plainDone.download!.url.slice('/downloads/'.length))!)

    const started = await call('export.start', {
      selection: { kind: 'query', query: {} },
      format: 'csv',
      columns: ['callId'],
      analysisLayout: 'wide',
      sidecar: true
    })
    if (!started.started) throw new Error('the browser mode has no dialog to cancel')
    expect(started.file.startsWith(staging.root)).toBe(true)
    const done = await until(() =>
      progress<ExportProgress>('export.progress', (p) => p.exportId === started.exportId && p.phase !== 'writing')
    )
    expect(done).toMatchObject({
      phase: 'done',
      download: { url: expect.stringMatching(/^\/downloads\/[\w-]{32}$/), name: expect.stringMatching(/^callsight-.*\.csv$/) }
    })
    const entry = staging.take(done.download!.url.slice('/downloads/'.length))
    expect(entry?.file).toBe(started.file)
    expect(readFileSync(entry!.file, 'utf8').split('\n').length).toBeGreaterThan(100)
    // Asked for, the CSV's query and coverage come as a second download beside it.
    expect(done.metaDownload?.name).toBe(`${done.download!.name}.meta.json`)
    const meta = staging.take(done.metaDownload!.url.slice('/downloads/'.length))
    expect(JSON.parse(readFileSync(meta!.file, 'utf8'))).toMatchObject({ format: 'csv', coverage: { complete: expect.any(Boolean) } })
    // Sent in either order, the folder goes with the last of the two.
    staging.discard(entry!)
    expect(existsSync(meta!.file)).toBe(true)
    staging.discard(meta!)
    expect(existsSync(dirname(meta!.file))).toBe(false)
  })
})
