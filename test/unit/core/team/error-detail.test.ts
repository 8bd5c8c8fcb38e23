import { describe, expect, it } from 'vitest'
import { CallsightError } from '../../../../src/core/errors'
import { ERROR_DETAIL_MAX, errorDetail } from '../../../../src/core/team/error-detail'
import { WorkerMetrics } from '../../../../src/core/team/worker-metrics'

describe('errorDetail', () => {
  it('keeps the cause chain with SQLSTATE and HTTP status, without secrets', () => {
    const pgError = Object.assign(new Error('password authentication failed for user "acme_writer"'), { code: '28P01' })
    const e = new CallsightError('InvalidCredentials', 'The team cache refused the user name or password.', { cause: pgError })
    const http = Object.assign(new Error('login refused; password=hunter2 token: abc.def Bearer eyJhbGciOi.x.y'), { status: 401 })
    const wrapped = new Error('connect postgres://acme_writer:s3cret@db.example:5432/team failed', { cause: http })
    expect(errorDetail(e)).toMatch(/InvalidCredentials[\s\S]*caused by Error, code 28P01: password authentication failed/)
    const d = errorDetail(wrapped)
    expect(d).toMatch(/HTTP 401/)
    for (const secret of ['s3cret', 'hunter2', 'abc.def', 'eyJhbGciOi']) expect(d).not.toContain(secret)
  })

  it('is bounded', () => {
    expect(errorDetail(new Error('x'.repeat(10_000))).length).toBeLessThanOrEqual(ERROR_DETAIL_MAX)
  })
})

describe('WorkerMetrics', () => {
  it('writes Prometheus text: one sample per line, labels escaped, per-scope lag', () => {
    const m = new WorkerMetrics(undefined, () => 100_000)
    m.requests = 7
    m.scope('a "quoted" scope').lastSuccessAt = 90_000
    m.scope('a "quoted" scope').syncedTo = 40_000
    const text = m.text(true)
    expect(text).toContain('callsight_worker_up 1\n')
    expect(text).toContain('callsight_worker_requests_total 7\n')
    expect(text).toContain('callsight_worker_lag_seconds{scope="a \\"quoted\\" scope"} 60\n')
    expect(text).toContain('# TYPE callsight_worker_requests_total counter\n')
  })
})
