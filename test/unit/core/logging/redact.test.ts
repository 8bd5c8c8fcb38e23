import { mkdtempSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { redact, redactingLogger, redactText, REDACTED } from '../../../../src/core/logging/redact'
import { createFileLogger } from '../../../../src/host/logging/file-logger'

const JWT = 'eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJheXNlIiwidGVuYW50IjoiYWNtZSJ9.c2lnbmF0dXJlLXZhbHVl'

describe('log redaction', () => {
  it('drops values under secret-sounding keys at any depth', () => {
    const out = redact({
      Authorization: 'Bearer abc',
      headers: { authorization: 'Basic dXNlcjpwdw==', 'content-type': 'application/json' },
      body: { username: 'ayse', password: 'hunter2', grant: { refresh_token: 'r-1', access_token: 'a-1' } },
      accessToken: 'a-2',
      tokens: [{ refreshToken: 'r-2' }],
      clientSecret: 's',
      count: 3
    })
    expect(out).toEqual({
      Authorization: REDACTED,
      headers: { authorization: REDACTED, 'content-type': 'application/json' },
      body: { username: 'ayse', password: REDACTED, grant: { refresh_token: REDACTED, access_token: REDACTED } },
      accessToken: REDACTED,
      tokens: REDACTED,
      clientSecret: REDACTED,
      count: 3
    })
  })

  it('finds credentials inside free text', () => {
    const text = [
      'request failed: Authorization: Bearer abc.def-ghi',
      `token ${JWT} rejected`,
      'POST /token body={"username":"ayse","password":"hunter2","refresh_token":"r-123"}',
      'url=https://x/cb?access_token=a-999&state=ok'
    ].join('\n')
    const out = redactText(text)
    for (const secret of ['abc.def-ghi', JWT, 'hunter2', 'r-123', 'a-999']) expect(out).not.toContain(secret)
    expect(out).toContain('Bearer [REDACTED]')
    expect(out).toContain('"username":"ayse"')
    expect(out).toContain('state=ok')
  })

  it('hides the password of a connection string, and sslpassword', () => {
    const out = redactText('connect postgres://writer:s3cr%40t@db.example:5432/calls?sslmode=require&sslpassword=k3y failed')
    expect(out).not.toContain('s3cr%40t')
    expect(out).not.toContain('k3y')
    expect(out).toContain('postgres://writer:[REDACTED]@db.example:5432/calls')
    expect(redactText('see https://example.com/a:b@c')).toBe('see https://example.com/a:b@c')
  })

  it('gives the client logger the same rules as the file log', () => {
    const lines: Array<[string, unknown]> = []
    const log = redactingLogger({ log: (_level, message, fields) => lines.push([message, fields]) })
    const deep: Record<string, unknown> = { v: 'Bearer zzz' }
    let cur = deep
    for (let i = 0; i < 12; i++) cur = (cur['n'] = { v: 'Bearer zzz' }) as Record<string, unknown>
    log.log('warn', 'retry with refresh_token=abc', { clientSecret: 'cs', body: '{"password":"pw1"}', deep })
    const text = JSON.stringify(lines)
    for (const secret of ['abc', 'cs"', 'pw1', 'zzz']) expect(text).not.toContain(secret)
  })

  it('redacts errors, their messages and stacks included', () => {
    const e = new Error('upstream said: Bearer tok-123 invalid')
    const out = redact({ error: e }) as { error: { name: string; message: string; stack: string } }
    expect(out.error.name).toBe('Error')
    expect(out.error.message).toBe('upstream said: Bearer [REDACTED] invalid')
    expect(out.error.stack).not.toContain('tok-123')
  })

  it('leaves ordinary values alone and survives cycles of depth', () => {
    expect(redact({ callId: 'c-1', at: 5, ok: true, none: null })).toEqual({ callId: 'c-1', at: 5, ok: true, none: null })
    const deep: Record<string, unknown> = {}
    let cur = deep
    for (let i = 0; i < 20; i++) {
      const next: Record<string, unknown> = {}
      cur['n'] = next
      cur = next
    }
    cur['password'] = 'x'
    expect(JSON.stringify(redact(deep))).not.toContain('"x"')
    expect(redact(new Uint8Array(16))).toBe('[16 bytes]')
  })
})

describe('file logger', () => {
  let dir = ''
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('writes redacted JSON lines to main.log, above the chosen level', () => {
    dir = mkdtempSync(join(tmpdir(), 'callsight-log-'))
    const logger = createFileLogger({ dir, level: 'info', now: () => Date.UTC(2026, 0, 2, 3, 4, 5) })
    logger.log('debug', 'not written')
    logger.log('info', 'sign-in ok', { user: 'ayse', password: 'hunter2' })
    logger.log('error', `refresh failed with ${JWT}`, { headers: { Authorization: 'Bearer a-1' } })
    const lines = readFileSync(join(dir, 'main.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(lines).toEqual([
      { t: '2026-01-02T03:04:05.000Z', level: 'info', msg: 'sign-in ok', fields: { user: 'ayse', password: REDACTED } },
      {
        t: '2026-01-02T03:04:05.000Z',
        level: 'error',
        msg: `refresh failed with ${REDACTED}`,
        fields: { headers: { Authorization: REDACTED } }
      }
    ])
  })

  it('rolls over to main.old.log past its size limit', () => {
    dir = mkdtempSync(join(tmpdir(), 'callsight-log-'))
    const logger = createFileLogger({ dir, maxBytes: 2000 })
    for (let i = 0; i < 40; i++) logger.log('info', `line ${i} ${'x'.repeat(80)}`)
    expect(existsSync(join(dir, 'main.old.log'))).toBe(true)
    expect(statSync(join(dir, 'main.log')).size).toBeLessThanOrEqual(2000)
    expect(readFileSync(join(dir, 'main.log'), 'utf8')).toContain('line 39')
  })
})
