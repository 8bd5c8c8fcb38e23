import { describe, it, expect } from 'vitest'
import { normalizeEnvelope, toCallRecord, buildCallsBody, type GetCallsParams } from '../../../../src/core/client'
import { CallsightError } from '../../../../src/core/errors'

const rec = (id: string) => ({ callId: id, callDate: '2026-03-10T12:00:00+03:00', title: 't', summary: 's', analysis: [] })

describe('normalizeEnvelope', () => {
  it('reads a bare array, {totalCount, items}, {result:{...}} and ABP {result, success}', () => {
    expect(normalizeEnvelope([rec('a')])).toEqual({ items: [rec('a')], totalCount: null })
    expect(normalizeEnvelope({ totalCount: 7, items: [rec('a')] })).toEqual({ items: [rec('a')], totalCount: 7 })
    expect(normalizeEnvelope({ result: { totalCount: 3, items: [] } })).toEqual({ items: [], totalCount: 3 })
    expect(normalizeEnvelope({ result: { totalCount: 3, items: [rec('b')] }, success: true, error: null, __abp: true })).toEqual({
      items: [rec('b')],
      totalCount: 3
    })
    expect(normalizeEnvelope({ TotalCount: 1, Items: [rec('c')] })).toEqual({ items: [rec('c')], totalCount: 1 })
    expect(normalizeEnvelope({ items: [], totalCount: 'many' })).toEqual({ items: [], totalCount: null })
  })

  it('refuses anything else as MalformedResponse', () => {
    for (const body of [null, 'x', 42, {}, { data: [] }, { items: {} }, { result: null }, { result: { items: [] }, success: false }]) {
      try {
        normalizeEnvelope(body)
        expect.unreachable()
      } catch (e) {
        expect(e).toBeInstanceOf(CallsightError)
        expect((e as CallsightError).code).toBe('MalformedResponse')
        expect((e as CallsightError).message).toBe('The service sent a response Callsight could not read.')
      }
    }
  })
})

describe('toCallRecord', () => {
  it('keeps unknown fields verbatim and the original callDate', () => {
    const r = toCallRecord(
      { ...rec('x1'), durationSeconds: 42, agent: { name: 'A', tags: [1, 2] }, callDate: '2026-03-10T09:00:00Z' },
      'Europe/Istanbul'
    )
    expect(r).toEqual({
      ok: true,
      record: {
        callId: 'x1',
        callAt: Date.parse('2026-03-10T09:00:00Z'),
        callDate: '2026-03-10T09:00:00Z',
        title: 't',
        summary: 's',
        analysis: [],
        extra: { durationSeconds: 42, agent: { name: 'A', tags: [1, 2] } }
      }
    })
  })

  it('reports records without a usable callId or callDate', () => {
    expect(toCallRecord(null, 'UTC')).toEqual({ ok: false, reason: 'the record is not an object' })
    expect(toCallRecord({ ...rec(''), callId: '  ' }, 'UTC')).toEqual({ ok: false, reason: 'the record has no callId' })
    expect(toCallRecord({ callDate: '2026-01-01T00:00:00Z' }, 'UTC')).toEqual({ ok: false, reason: 'the record has no callId' })
    expect(toCallRecord({ callId: 'a' }, 'UTC')).toEqual({ ok: false, reason: 'the record has no callDate' })
    expect(toCallRecord({ callId: 'a', callDate: 'soon' }, 'UTC')).toMatchObject({ ok: false })
  })

  it('accepts loose but usable shapes, keeping what it cannot read in extra', () => {
    const r = toCallRecord(
      {
        callId: 17,
        callDate: '2026-03-10T12:00:00',
        title: null,
        analysis: [{ key: 'score', friendlyName: 'Skor', value: 4.5 }, { nokey: true }]
      },
      'Europe/Istanbul'
    )
    expect(r.ok).toBe(true)
    if (!r.ok) return
    expect(r.record.callId).toBe('17')
    expect(r.record.callAt).toBe(Date.parse('2026-03-10T09:00:00Z'))
    expect(r.record.title).toBe('')
    expect(r.record.summary).toBe('')
    expect(r.record.analysis).toEqual([{ key: 'score', friendlyName: 'Skor', value: '4.5' }])
    expect(r.record.extra.analysis).toEqual([{ key: 'score', friendlyName: 'Skor', value: 4.5 }, { nokey: true }])
  })
})

describe('buildCallsBody', () => {
  const base: GetCallsParams = {
    from: Date.parse('2026-03-10T09:00:00Z'),
    to: Date.parse('2026-03-10T10:00:00Z'),
    skip: 0,
    take: 100,
    ascending: true,
    callTypes: ['Complaint'],
    direction: null,
    results: 'answered',
    hasNewRequest: null,
    includeAnalysis: true
  }
  it('sends results absent for answered, null for all, the list otherwise', () => {
    expect('results' in buildCallsBody(base, 'Europe/Istanbul')).toBe(false)
    expect(buildCallsBody({ ...base, results: 'all' }, 'UTC').results).toBeNull()
    expect(buildCallsBody({ ...base, results: [1, 3] }, 'UTC').results).toEqual([1, 3])
  })
  it('writes local dates in the account zone and leaves unset filters out', () => {
    expect(buildCallsBody({ ...base, direction: 2, hasNewRequest: false }, 'Europe/Istanbul')).toEqual({
      startTime: '2026-03-10T12:00:00',
      endTime: '2026-03-10T13:00:00',
      skip: 0,
      take: 100,
      sortColumn: 'start_time_dt',
      isAscending: true,
      issueTypeNames: ['Complaint'],
      includeAnalysis: true,
      direction: 2,
      hasNewRequest: false
    })
  })
})
