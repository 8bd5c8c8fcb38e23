import { describe, expect, it } from 'vitest'
import { pulledCall } from '../../../../src/core/team/pulled-rows'

const row = {
  call_id: 'c1',
  call_at: '1767225600000',
  call_date: '2026-01-01T03:00:00+03:00',
  title: 'Fatura',
  summary: 'Müşteri faturasını sordu',
  extra: '{"agent":"Ayşe","durationSeconds":61}',
  analysis: '[["topic","Konu","fatura"],["score","Puan","7"]]',
  seq: '42'
}

describe('pulledCall', () => {
  it('turns a team cache row into the record a sync would store', () => {
    expect(pulledCall(row)).toEqual({
      record: {
        callId: 'c1',
        callAt: 1767225600000,
        callDate: '2026-01-01T03:00:00+03:00',
        title: 'Fatura',
        summary: 'Müşteri faturasını sordu',
        analysis: [
          { key: 'topic', friendlyName: 'Konu', value: 'fatura' },
          { key: 'score', friendlyName: 'Puan', value: '7' }
        ],
        extra: { agent: 'Ayşe', durationSeconds: 61 }
      },
      hasAnalysis: true
    })
    // No analysis fetched yet is not the same as an empty list.
    expect(pulledCall({ ...row, analysis: null, extra: '{}' })).toMatchObject({ record: { analysis: [], extra: {} }, hasAnalysis: false })
    expect(pulledCall({ ...row, analysis: '[]' }).hasAnalysis).toBe(true)
  })

  it.each([
    ['an empty id', { call_id: '' }],
    ['a missing title', { title: undefined }],
    ['a call time that is not whole', { call_at: '12.5' }],
    ['a call time beyond a safe number', { call_at: '99999999999999999999' }],
    ['a change number that is not a number', { seq: 'x' }],
    ['analysis that is not a list', { analysis: '{"a":1}' }],
    ['an item of two fields', { analysis: '[["k","n"]]' }],
    ['an item with a number', { analysis: '[["k","n",7]]' }],
    ['extra fields that are a list', { extra: '[1]' }],
    ['extra fields that are null', { extra: 'null' }],
    ['analysis that is not JSON', { analysis: '[[' }]
  ])('refuses a row with %s', (_, change) => {
    expect(() => pulledCall({ ...row, ...change })).toThrow()
  })
})
