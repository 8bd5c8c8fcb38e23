import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { lockKey, mapPgError, passwordInUrl, poolConfig, redactUrl, scopeAt, scramVerifier, WorkerConfig } from '../../../../src/core/team'

const base = {
  server: 'https://calls.example.com',
  user: 'worker',
  zone: 'Europe/Istanbul',
  db: 'postgres://acme_writer@db.example.com/callsight',
  schema: 'acme',
  scopes: [{ name: 'all', days: 30, analysis: true }]
}

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n'

describe('team cache configuration', () => {
  it('maps sslmode to TLS settings the way libpq means them', () => {
    expect(poolConfig({ url: 'postgres://u@h/db', schema: 'acme' }).ssl).toBe(false)
    expect(poolConfig({ url: 'postgres://u@h/db?sslmode=require', schema: 'acme' }).ssl).toEqual({ rejectUnauthorized: false })
    // verify-* trust the given CA file only: without one they are refused, not pointed at
    // Node's public bundle.
    expect(() => poolConfig({ url: 'postgres://u@h/db?sslmode=verify-full', schema: 'acme' })).toThrow(/needs the CA file/)
    expect(() => poolConfig({ url: 'postgres://u@h/db', schema: 'acme', sslMode: 'verify-ca' })).toThrow(/needs the CA file/)
    const dir = mkdtempSync(join(tmpdir(), 'callsight-ca-'))
    try {
      const caFile = join(dir, 'ca.pem')
      writeFileSync(caFile, PEM)
      expect(poolConfig({ url: `postgres://u@h/db?sslmode=verify-full&sslrootcert=${caFile}`, schema: 'acme' }).ssl).toEqual({
        ca: PEM,
        rejectUnauthorized: true
      })
      const ca = poolConfig({ url: 'postgres://u@h/db', schema: 'acme', sslMode: 'verify-ca', sslRootCert: caFile }).ssl as {
        ca?: string
        checkServerIdentity?: unknown
      }
      expect(ca.ca).toBe(PEM)
      expect(typeof ca.checkServerIdentity).toBe('function')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    expect(() => poolConfig({ url: 'postgres://u@h/db?sslmode=prefer', schema: 'acme' })).toThrow(/not supported/)
    expect(() => poolConfig({ url: 'mysql://u@h/db', schema: 'acme' })).toThrow(/postgres:\/\//)
    expect(() => poolConfig({ url: 'postgres://u@h/db', schema: 'Robert"; DROP' })).toThrow()
  })

  it('reads user, password, host, port and database from the string; the password never shows', () => {
    const c = poolConfig({ url: 'postgres://an%40lyst:p%40ss@db.example.com:6543/team%20db', schema: 'acme' })
    expect(c).toMatchObject({ user: 'an@lyst', password: 'p@ss', host: 'db.example.com', port: 6543, database: 'team db' })
    expect(poolConfig({ url: 'postgres://u@h/db', schema: 'acme' }).password).toBeUndefined()
    expect(redactUrl('postgres://u:secret@h/db')).not.toContain('secret')
    expect(redactUrl('postgres://u:secret@h/db')).toContain('***')
    // libpq also reads a password, and the TLS key's passphrase, from query parameters.
    const redacted = redactUrl('postgres://u@h/db?sslmode=verify-full&password=secret1&sslpassword=secret2&sslkey=/k.pem')
    expect(redacted).not.toMatch(/secret/)
    expect(redacted).toContain('sslkey=%2Fk.pem')
    expect(passwordInUrl('postgres://u@h/db?password=x')).toBe('?password=')
    expect(passwordInUrl('postgres://u@h/db?sslpassword=x')).toBe('?sslpassword=')
    expect(passwordInUrl('postgres://u:x@h/db')).toBe('user:password@')
    expect(passwordInUrl('postgres://u@h/db?sslmode=require&sslkey=/k.pem')).toBeNull()
  })

  it('refuses a worker config with a password, both days and from, or two scopes of one name', () => {
    expect(WorkerConfig.safeParse(base).success).toBe(true)
    expect(WorkerConfig.safeParse({ ...base, db: 'postgres://w:pw@h/db' }).success).toBe(false)
    expect(WorkerConfig.safeParse({ ...base, db: 'postgres://w@h/db?password=pw' }).success).toBe(false)
    expect(WorkerConfig.safeParse({ ...base, db: 'postgres://w@h/db?sslmode=require&sslpassword=pw' }).success).toBe(false)
    expect(WorkerConfig.safeParse({ ...base, scopes: [{ name: 'x', days: 3, from: '2026-01-01T00:00:00Z' }] }).success).toBe(false)
    expect(
      WorkerConfig.safeParse({
        ...base,
        scopes: [
          { name: 'x', days: 3 },
          { name: 'x', days: 4 }
        ]
      }).success
    ).toBe(false)
    expect(WorkerConfig.safeParse({ ...base, extra: 1 }).success).toBe(false)
  })

  it('gives a rolling scope whole seconds ending now, and a fixed one its start', () => {
    const now = Date.parse('2026-03-01T10:00:00.750Z')
    const rolling = scopeAt(
      { name: 'r', days: 2, analysis: false, results: 'answered', types: [], direction: null, hasNewRequest: null },
      now
    )
    expect(rolling.to).toBe(Date.parse('2026-03-01T10:00:00Z'))
    expect(rolling.from).toBe(Date.parse('2026-02-27T10:00:00Z'))
    const fixed = scopeAt(
      {
        name: 'f',
        from: '2026-01-01T00:00:00+03:00',
        analysis: true,
        results: 'all',
        types: ['Complaint'],
        direction: 1,
        hasNewRequest: null
      },
      now
    )
    expect(fixed).toMatchObject({
      from: Date.parse('2025-12-31T21:00:00Z'),
      callTypes: ['Complaint'],
      direction: 1,
      results: 'all',
      includeAnalysis: true
    })
  })

  it('keys advisory locks stably and apart, and builds SCRAM verifiers PostgreSQL accepts the form of', () => {
    expect(lockKey('callsight-write:acme')).toBe(lockKey('callsight-write:acme'))
    expect(lockKey('callsight-write:acme')).not.toBe(lockKey('callsight-write:acmf'))
    expect(BigInt(lockKey('x')) >= -(2n ** 63n) && BigInt(lockKey('x')) < 2n ** 63n).toBe(true)
    const v = scramVerifier('pw')
    expect(v).toMatch(/^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]{44}:[A-Za-z0-9+/=]{44}$/)
    expect(scramVerifier('pw')).not.toBe(v)
    expect(v).not.toContain('pw$')
  })

  it('turns PostgreSQL errors into ones a person can act on', () => {
    expect(mapPgError({ code: '28P01', message: 'password authentication failed' }).code).toBe('InvalidCredentials')
    expect(mapPgError({ code: '42501', message: 'permission denied for table calls' }).code).toBe('Forbidden')
    expect(mapPgError({ code: '25006', message: 'cannot execute INSERT in a read-only transaction' }).code).toBe('Forbidden')
    expect(mapPgError({ code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' }).code).toBe('Network')
    expect(mapPgError({ code: '42P01', message: 'relation does not exist' }).hint).toMatch(/team init/)
    expect(mapPgError(new Error('boom')).message).not.toContain('boom')
    // The server ended the session (shutdown, pg_terminate_backend, idle timeout) or the
    // socket closed: a retry continues the work; a dropped database is not that.
    for (const e of [
      { code: '57P01', message: 'terminating connection due to administrator command' },
      { code: '57P05', message: 'terminating connection due to idle-session timeout' },
      new Error('Connection terminated unexpectedly'),
      new Error('Client has encountered a connection error and is not queryable')
    ]) {
      expect(mapPgError(e).code).toBe('Network')
      expect(mapPgError(e).hint).toMatch(/continues where it stopped/)
    }
    expect(mapPgError({ code: '57P04', message: 'database dropped' }).code).toBe('Storage')
  })
})
