import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../../src/cli'
import type { Io } from '../../../src/cli/output'
import { openCache } from '../../../src/core/cache'
import type { CallRecord } from '../../../src/shared/domain'
import { hostileServer, type Hostile } from '../client/hostile'

/** Sets the window title, clears the screen, writes the clipboard (OSC 52), a C1 CSI, a bidi override. */
const HOSTILE_TITLE = 'Fatura\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;ZXZpbA==\u0007 itirazı\u009b31m\u202e'
const HOSTILE_ID = 'C-1\u001b[31m'
/** Anything a terminal would act on; our own output has line breaks only. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

function capture(): Io & { text: () => string; stdout: () => string } {
  let out = ''
  let err = ''
  return { out: (t) => void (out += t), err: (t) => void (err += t), tty: false, text: () => out + err, stdout: () => out }
}

const TOKEN = { token_type: 'Bearer', access_token: 'a', expires_in: 3600, refresh_token: 'r', scope: 'Service.Public offline_access' }
const FROM = '2026-01-05T06:00:00Z'
const TO = '2026-01-05T18:00:00Z'

let service: Hostile
let mode: 'page' | 'validation' = 'page'
let dir = ''
const password = process.env.CALLSIGHT_PASSWORD

beforeAll(async () => {
  service = await hostileServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    if (req.path.endsWith('/auth/token')) return res.end(JSON.stringify(TOKEN))
    if (mode === 'validation') {
      res.statusCode = 400
      return res.end(
        JSON.stringify({
          error: { message: 'Bad', validationErrors: [{ message: 'take \u001b]0;owned\u0007is wrong', members: ['take'] }] }
        })
      )
    }
    res.end(
      JSON.stringify({
        totalCount: 1,
        items: [{ callId: HOSTILE_ID, callDate: '2026-01-05T09:00:00Z', title: HOSTILE_TITLE, summary: 's', analysis: [] }]
      })
    )
  })
  dir = mkdtempSync(join(tmpdir(), 'callsight-cli-esc-'))
  process.env.CALLSIGHT_PASSWORD = 'pw'
})
afterAll(async () => {
  await service.stop()
  rmSync(dir, { recursive: true, force: true })
  if (password === undefined) delete process.env.CALLSIGHT_PASSWORD
  else process.env.CALLSIGHT_PASSWORD = password
})
afterEach(() => {
  mode = 'page'
})

const remote = (extra: string[] = []) => [
  'remote-search',
  '--server',
  service.url,
  '--user',
  'ayse',
  '--from',
  FROM,
  '--to',
  TO,
  '--zone',
  'UTC',
  ...extra
]

describe('the CLI shows control characters from the service, never sends them to the terminal', () => {
  it('remote-search, human-readable', async () => {
    const io = capture()
    expect(await main(remote(), io)).toBe(0)
    expect(io.text()).not.toMatch(CONTROL)
    expect(io.stdout()).toContain('C-1␛[31m  Fatura␛]0;pwned␇␛[2J␛]52;c;ZXZpbA==␇ itirazı\uFFFD31m\uFFFD')
  })

  it('remote-search --json: the same strings back for a JSON reader, nothing live on the terminal', async () => {
    const io = capture()
    expect(await main(remote(['--json']), io)).toBe(0)
    expect(io.stdout()).not.toMatch(CONTROL)
    const page = JSON.parse(io.stdout()) as { items: Array<{ callId: string; title: string }> }
    expect(page.items[0]).toMatchObject({ callId: HOSTILE_ID, title: HOSTILE_TITLE })
  })

  it("an error message carrying the service's words", async () => {
    mode = 'validation'
    const io = capture()
    expect(await main(remote(), io)).toBe(9)
    expect(io.text()).not.toMatch(CONTROL)
    expect(io.text()).toContain('take ␛]0;owned␇is wrong')
  })

  it("search over the cache, and sync's own lines", async () => {
    const db = join(dir, 'cache.db')
    const io = capture()
    expect(
      await main(
        ['sync', '--server', service.url, '--user', 'ayse', '--db', db, '--from', FROM, '--to', TO, '--zone', 'UTC', '--results', 'all'],
        io
      )
    ).toBe(0)
    expect(io.text()).not.toMatch(CONTROL)
    // A record written by some other means (an older version, another tool) prints safely too.
    const cache = openCache(db)
    const record: CallRecord = {
      callId: 'C-2\u0007',
      callAt: Date.parse('2026-01-05T10:00:00Z'),
      callDate: '2026-01-05T10:00:00Z',
      title: 'x\u001b[1Ay',
      summary: '',
      analysis: [],
      extra: {}
    }
    cache.ensureScope('other', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: false })
    cache.writePage({ scopeKey: 'other', records: [record], includeAnalysis: false, checkpoint: null })
    cache.close()
    const found = capture()
    expect(await main(['search', '--db', db, '--results', 'all', '--zone', 'UTC'], found)).toBe(0)
    expect(found.text()).not.toMatch(CONTROL)
    expect(found.stdout()).toContain('Fatura␛]0;pwned␇')
    expect(found.stdout()).toContain('C-2␇  x␛[1Ay')
  })

  it('an unknown command name typed with escapes', async () => {
    const io = capture()
    expect(await main(['\u001b]0;x\u0007'], io)).toBe(2)
    expect(io.text()).not.toMatch(CONTROL)
  })
})
