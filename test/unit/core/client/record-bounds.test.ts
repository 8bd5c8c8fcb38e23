import { describe, expect, it } from 'vitest'
import { normalizeEnvelope, toCallRecord } from '../../../../src/core/client'
import { UNKNOWN_FIELD_BOUNDS, checkJsonBounds } from '../../../../src/core/client/json-bounds'
import { guardRecord } from '../../../../src/core/pii'

const rec = (id: string) => ({ callId: id, callDate: '2026-03-10T12:00:00+03:00', title: 't', summary: 's', analysis: [] })

/** A value `levels` containers deep, built from JSON text as the service's body would be. */
const nested = (levels: number, leaf = '"x"'): unknown => JSON.parse(`${'['.repeat(levels)}${leaf}${']'.repeat(levels)}`)

describe("bounds on a record's unknown fields", () => {
  it('reports a record whose unknown field nests 5,000 deep as malformed, and keeps the page', () => {
    const page = JSON.parse(
      `[${JSON.stringify(rec('a'))},{"callId":"b","callDate":"2026-03-10T12:00:00Z","x":${'['.repeat(5000)}1${']'.repeat(5000)}},${JSON.stringify(rec('c'))}]`
    )
    const results = normalizeEnvelope(page).items.map((item) => toCallRecord(item, 'UTC'))
    expect(results.map((r) => r.ok)).toEqual([true, false, true])
    expect(results[1]).toEqual({ ok: false, reason: "the record's unknown fields nest deeper than 32 levels" })
    // What the client does next with a kept record must not overflow either.
    for (const r of results) if (r.ok) JSON.stringify(guardRecord(r.record))
  })

  it('keeps unknown fields 32 levels deep with the record, and refuses 33', () => {
    // The record's `extra` object is the first level, so a field may nest 31 more.
    const ok = toCallRecord({ ...rec('a'), x: nested(31) }, 'UTC')
    expect(ok.ok).toBe(true)
    expect(toCallRecord({ ...rec('a'), x: nested(32) }, 'UTC')).toEqual({
      ok: false,
      reason: "the record's unknown fields nest deeper than 32 levels"
    })
  })

  it('refuses unknown fields past 256 KB, and keeps a long summary', () => {
    expect(toCallRecord({ ...rec('a'), blob: 'x'.repeat(300 * 1024) }, 'UTC')).toEqual({
      ok: false,
      reason: "the record's unknown fields are larger than 256 KB"
    })
    expect(toCallRecord({ ...rec('a'), many: Array.from({ length: 60_000 }, () => 1) }, 'UTC')).toMatchObject({ ok: false })
    expect(toCallRecord({ ...rec('a'), summary: 's'.repeat(1024 * 1024) }, 'UTC').ok).toBe(true)
  })

  it('bounds a title or summary that is an object, before it is written as JSON text', () => {
    expect(toCallRecord({ ...rec('a'), title: nested(5_000) }, 'UTC')).toEqual({
      ok: false,
      reason: "the record's title and summary objects nest deeper than 32 levels"
    })
    expect(toCallRecord({ ...rec('a'), summary: { a: [1, 2] } }, 'UTC')).toMatchObject({ ok: true, record: { summary: '{"a":[1,2]}' } })
  })

  it('bounds unreadable analysis kept verbatim, which goes with the unknown fields', () => {
    expect(toCallRecord({ ...rec('a'), analysis: [{ key: 'k', value: nested(100) }] }, 'UTC')).toMatchObject({ ok: false })
  })

  it('measures a value a million levels deep without recursion', () => {
    expect(checkJsonBounds(nested(1_000_000), { depth: 2_000_000, bytes: Number.MAX_SAFE_INTEGER })).toEqual({ ok: true })
    expect(checkJsonBounds(nested(1_000_000), UNKNOWN_FIELD_BOUNDS)).toEqual({ ok: false, exceeded: 'depth' })
    expect(checkJsonBounds({ a: [1, { b: 'c' }] }, { depth: 3, bytes: 100 })).toEqual({ ok: true })
    expect(checkJsonBounds({ a: [1, { b: 'c' }] }, { depth: 2, bytes: 100 })).toEqual({ ok: false, exceeded: 'depth' })
    expect(checkJsonBounds('x'.repeat(99), { depth: 1, bytes: 100 })).toEqual({ ok: false, exceeded: 'bytes' })
  })
})
