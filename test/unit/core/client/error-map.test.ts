import { describe, it, expect } from 'vitest'
import { mapHttpFailure } from '../../../../src/core/client'
import { redact, redactText } from '../../../../src/core/logging/redact'
import { backoffMs, DEFAULT_RETRY } from '../../../../src/core/client/retry'

const fail = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: new Headers(headers),
  body: typeof body === 'string' ? body : JSON.stringify(body)
})

describe('mapHttpFailure', () => {
  it('maps credentials, refresh and token failures by endpoint', () => {
    expect(mapHttpFailure(fail(401, { error: 'invalid_grant' }), 'login').toInfo()).toEqual({
      code: 'InvalidCredentials',
      message: 'The user name or password is not correct.',
      status: 401
    })
    expect(mapHttpFailure(fail(400, { error: 'invalid_grant' }), 'login').code).toBe('InvalidCredentials')
    expect(mapHttpFailure(fail(400, { error: 'invalid_grant', error_description: 'revoked' }), 'refresh').toInfo()).toEqual({
      code: 'ReloginRequired',
      message: 'Your session with the service has ended; please sign in again.',
      status: 400
    })
    expect(mapHttpFailure(fail(401, ''), 'calls').message).toBe('The service did not accept the sign-in token.')
  })

  it('explains 403 with the egress-address hint', () => {
    const e = mapHttpFailure(fail(403, { error: { message: 'no' } }), 'calls')
    expect(e.code).toBe('IpNotAllowed')
    expect(e.message).toBe("The service does not accept connections from this computer's network address.")
    expect(e.hint).toMatch(/egress IP address .*CIDR/)
  })

  it('parses ABP validation errors into fields and one readable sentence', () => {
    const body = {
      error: {
        code: null,
        message: 'Your request is not valid!',
        details: 'The following errors were detected during validation.\n - take',
        validationErrors: [
          { message: 'The field take must be between 0 and 100.', members: ['take'] },
          { message: 'startTime must not be later than endTime.', members: ['startTime', 'endTime'] }
        ]
      }
    }
    const e = mapHttpFailure(fail(400, body, { _AbpErrorFormat: 'true' }), 'calls')
    expect(e.toInfo()).toEqual({
      code: 'Validation',
      message: 'The service rejected the request as invalid: The field take must be between 0 and 100.',
      fields: [
        { members: ['take'], message: 'The field take must be between 0 and 100.' },
        { members: ['startTime', 'endTime'], message: 'startTime must not be later than endTime.' }
      ],
      status: 400
    })
  })

  it('reads ProblemDetails too, and masks personal data in server text', () => {
    const e = mapHttpFailure(fail(400, { title: 'Bad', errors: { Take: ['Too big for 0532 123 45 67'] } }), 'calls')
    expect(e.fields).toEqual([{ members: ['Take'], message: 'Too big for [MASKED]' }])
    expect(e.message).toBe('The service rejected the request as invalid: Too big for [MASKED].')
  })

  it('names the unknown call type', () => {
    const body = {
      error: {
        message: 'Your request is not valid!',
        validationErrors: [{ message: "Undefined issue type name: 'Nope'.", members: ['issueTypeNames'] }]
      }
    }
    const e = mapHttpFailure(fail(400, body, { _AbpErrorFormat: 'true' }), 'calls', ['Complaint', 'Nope'])
    expect(e.toInfo()).toEqual({
      code: 'UnknownCallType',
      message: 'The service does not know the call type "Nope".',
      callType: 'Nope',
      status: 400
    })
  })

  it('never puts a raw body into the message', () => {
    const e = mapHttpFailure(fail(418, '<html>stack trace at Foo.Bar()</html>'), 'calls')
    expect(e.message).toBe('The service answered with an unexpected status (HTTP 418).')
    expect(mapHttpFailure(fail(502, 'Bad gateway <pre>secret</pre>'), 'calls').message).toBe(
      'The service had an internal problem (HTTP 502); please try again later.'
    )
  })
})

describe('redaction and backoff', () => {
  it('redacts tokens, bearer headers and passwords', () => {
    expect(redactText('Authorization: Bearer abc.def-ghi')).toBe('Authorization: Bearer [REDACTED]')
    expect(redactText('grant_type=refresh_token&refresh_token=XYZ123&client_id=a')).toBe(
      'grant_type=refresh_token&refresh_token=[REDACTED]&client_id=a'
    )
    expect(redactText('jwt eyJhbGciOi.eyJzdWIiOi.sig')).toBe('jwt [REDACTED]')
    expect(redact({ headers: { Authorization: 'x' }, password: 'p', nested: [{ refreshToken: 'r' }], ok: 1 })).toEqual({
      headers: { Authorization: '[REDACTED]' },
      password: '[REDACTED]',
      nested: [{ refreshToken: '[REDACTED]' }],
      ok: 1
    })
  })

  it('backs off exponentially with jitter, capped', () => {
    const lo = { ...DEFAULT_RETRY, random: () => 0 }
    const hi = { ...DEFAULT_RETRY, random: () => 0.999999 }
    expect([0, 1, 2, 3].map((r) => backoffMs(r, lo))).toEqual([250, 500, 1000, 2000])
    expect([0, 1, 2, 3].map((r) => backoffMs(r, hi))).toEqual([500, 1000, 2000, 4000])
    expect(backoffMs(20, hi)).toBe(20_000)
    expect(backoffMs(20, lo)).toBe(10_000)
  })
})
