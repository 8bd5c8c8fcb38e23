import { request as httpRequest, type IncomingMessage } from 'node:http'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Handlers, StreamedDownload } from '../../../src/core/app/host-ports'
import { exportCalls, type ExportOptions } from '../../../src/core/export'
import type { CallRecord } from '../../../src/shared/domain'
import { createDownloadStaging, type DownloadStaging } from '../../../src/web/downloads'
import { startWebServer, type WebServer } from '../../../src/web/server'

// A CSV export streamed into the browser's download through the real server on 127.0.0.1:
// the bytes are the file export's (masking and formula guard included), the route is behind
// the same gate as every download, and a cancel or a stopped download never ends as a
// complete response.

/** Several MiB: past the writer's lead (1 MiB here), so the export waits for the reader. */
function calls(n: number): CallRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    callId: `c-${i}`,
    callAt: Date.UTC(2026, 0, 5, 9, 0, i % 60),
    callDate: '2026-01-05T12:00:00+03:00',
    title: i % 3 === 0 ? `=HYPERLINK("http://x/${i}","click")` : `+SUM(A${i}) başlık`,
    summary: `Müşteri 0532 123 45 ${String(i % 100).padStart(2, '0')} numarasından aradı; ali.${i}@example.com; ${'ş'.repeat(200)}`,
    analysis: [
      { key: 'score', friendlyName: 'Score', value: String((i % 100) / 10) },
      { key: 'note', friendlyName: 'Note', value: i % 2 === 0 ? '@cmd' : 'line\nbreak' }
    ],
    extra: {}
  }))
}

const records = calls(12_000)

function options(file: string, extra: Partial<ExportOptions> = {}): ExportOptions {
  return {
    source: {
      total: records.length,
      analysisKeys: [
        { key: 'score', friendlyName: 'Score' },
        { key: 'note', friendlyName: 'Note' }
      ],
      records: records.values()
    },
    file,
    format: 'csv',
    columns: ['callId', 'callDate', 'title', 'summary', 'analysis'],
    analysisLayout: 'wide',
    zone: 'Europe/Istanbul',
    sidecar: false,
    meta: { query: { text: '' }, appVersion: 'test', exportedAt: Date.UTC(2026, 0, 6) },
    ...extra
  }
}

interface Got {
  res: IncomingMessage
  body: Buffer
  /** The response ended with its last chunk (false: cut off). */
  complete: boolean
}

let dir = ''
let staging: DownloadStaging
let server: WebServer
let port = 0
let cookie = ''

function get(
  path: string,
  headers: Record<string, string> = {},
  onChunk?: (req: { destroy(): void }, bytes: number) => void
): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path, method: 'GET', headers: { host: `127.0.0.1:${port}`, cookie, ...headers } },
      (res) => {
        const chunks: Buffer[] = []
        let bytes = 0
        res.on('data', (c: Buffer) => {
          chunks.push(c)
          bytes += c.length
          onChunk?.(req, bytes)
        })
        const done = (): void => resolve({ res, body: Buffer.concat(chunks), complete: res.complete })
        res.on('end', done)
        res.on('error', done)
        res.on('close', done)
      }
    )
    req.on('error', (e) =>
      onChunk ? resolve({ res: null as unknown as IncomingMessage, body: Buffer.alloc(0), complete: false }) : reject(e)
    )
    req.end()
  })
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-stream-download-'))
  writeFileSync(join(dir, 'index.html'), '<!doctype html><html><head><title>t</title></head><body></body></html>')
  staging = createDownloadStaging({ parent: dir, streamAheadBytes: 1 << 20 })
  server = await startWebServer({ handlers: {} as Handlers, rendererDir: dir, downloads: staging })
  port = Number(new URL(server.origin).port)
  // The session cookie, bought with a launch key as the browser does.
  const launch = new URL(server.issueLaunchUrl())
  const exchange = await get(launch.pathname + launch.search)
  expect(exchange.res.statusCode).toBe(200)
  cookie = String(exchange.res.headers['set-cookie']?.[0]).split(';')[0]!
})

afterAll(async () => {
  await server?.close()
  staging?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

async function stream(): Promise<StreamedDownload & { file: string; path: string }> {
  const file = await staging.dialogs.chooseExportFile('calls.csv', 'csv')
  const streamed = staging.dialogs.streamDownload!(file!)
  return { ...streamed!, file: file!, path: streamed!.download.url }
}

describe('a CSV streamed into the download', () => {
  it('sends the same bytes as the file export, masked and neutralized, as one chunked response', async () => {
    const s = await stream()
    const exporting = exportCalls(options(s.file, { sink: s.sink }))
    const got = await get(s.path)
    const result = await exporting
    expect(result.count).toBe(records.length)
    expect(got.res.statusCode).toBe(200)
    expect(got.complete).toBe(true)
    expect(got.res.headers['transfer-encoding']).toBe('chunked')
    expect(got.res.headers['content-length']).toBeUndefined()
    expect(got.res.headers['content-disposition']).toContain('calls.csv')
    expect(got.res.headers['x-content-type-options']).toBe('nosniff')

    const fileCopy = join(dir, 'file-export.csv')
    await exportCalls(options(fileCopy))
    const expected = readFileSync(fileCopy)
    expect(got.body.length).toBeGreaterThan(2 << 20)
    expect(got.body.equals(expected)).toBe(true)
    // What the guards did is in those bytes: no phone or e-mail, no live formula.
    const text = got.body.toString('utf8')
    expect(text).not.toMatch(/0532 123 45/)
    expect(text).not.toMatch(/ali\.\d+@example\.com/)
    expect(text).not.toMatch(/(^|[,\n])"?=HYPERLINK/m)
    expect(text).toContain('[MASKED]')
    expect(text).toContain(`"'=HYPERLINK(""http://x/0""`)
    expect(text).toContain(",'@cmd")
    // Not written to the staging folder: the download is the only copy.
    expect(() => readFileSync(s.file)).toThrow()
    // Answered once.
    expect((await get(s.path)).res.statusCode).toBe(404)
  })

  it('is behind the gate: a foreign Origin, a wrong Host, no cookie or a wrong id get nothing, and take nothing', async () => {
    const s = await stream()
    const exporting = exportCalls(options(s.file, { sink: s.sink }))
    expect((await get(s.path, { origin: 'http://127.0.0.1:9' })).res.statusCode).toBe(403)
    expect((await get(s.path, { origin: 'http://evil.example' })).res.statusCode).toBe(403)
    expect((await get(s.path, { host: `evil.example:${port}` })).res.statusCode).toBe(403)
    expect((await get(s.path, { 'sec-fetch-site': 'cross-site' })).res.statusCode).toBe(403)
    expect((await get(s.path, { cookie: 'callsight-1=nope' })).res.statusCode).toBe(403)
    expect((await get(`${s.path.slice(0, -4)}AAAA`)).res.statusCode).toBe(404)
    // Refused requests did not spend the download: its own request still gets all of it.
    const got = await get(s.path, { 'sec-fetch-site': 'same-origin' })
    await exporting
    expect(got.complete).toBe(true)
    expect(got.body.subarray(0, 3).toString('latin1')).toBe('\xEF\xBB\xBF')
  })

  it('cuts the download off, never completing it, when the export is cancelled mid-way', async () => {
    const s = await stream()
    const abort = new AbortController()
    const exporting = exportCalls(options(s.file, { sink: s.sink, signal: abort.signal }))
    exporting.catch(() => undefined)
    const got = await get(s.path, {}, (_req, bytes) => {
      if (bytes > 512 * 1024) abort.abort()
    })
    await expect(exporting).rejects.toMatchObject({ code: 'Cancelled' })
    expect(got.complete).toBe(false)
    expect(got.body.length).toBeLessThan(readFileSync(join(dir, 'file-export.csv')).length)
  })

  it('is cancelled, not left waiting, when the cancel comes after every row is written but before the browser asked', async () => {
    const s = await stream()
    const abort = new AbortController()
    // 200 calls fit within the writer's lead: the writer is done and waits only for the browser.
    const small = records.slice(0, 200)
    const exporting = exportCalls(
      options(s.file, {
        sink: s.sink,
        signal: abort.signal,
        source: { total: small.length, analysisKeys: [], records: small.values() }
      })
    )
    exporting.catch(() => undefined)
    await new Promise((r) => setTimeout(r, 200))
    expect(s.sink.writableEnded).toBe(true)
    abort.abort()
    await expect(exporting).rejects.toMatchObject({ code: 'Cancelled' })
    expect(s.sink.destroyed).toBe(true)
    expect((await get(s.path)).res.statusCode).toBe(404)
  })

  it('fails the export when the browser stops the download', async () => {
    const s = await stream()
    const exporting = exportCalls(options(s.file, { sink: s.sink }))
    exporting.catch(() => undefined)
    await get(s.path, {}, (req, bytes) => {
      if (bytes > 512 * 1024) req.destroy()
    })
    await expect(exporting).rejects.toMatchObject({ code: 'Storage', message: expect.stringContaining('browser stopped') })
  })

  it('answers 404 once an export failed before the browser asked', async () => {
    const s = await stream()
    const abort = new AbortController()
    abort.abort()
    await expect(exportCalls(options(s.file, { sink: s.sink, signal: abort.signal }))).rejects.toMatchObject({ code: 'Cancelled' })
    // The handler destroys a sink the export never began to write.
    s.sink.destroy()
    expect((await get(s.path)).res.statusCode).toBe(404)
  })
})
