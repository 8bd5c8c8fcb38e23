import { describe, expect, it } from 'vitest'
import { MASK, guardRecord, maskDeep, maskText } from '../../../../src/core/pii'
import { findTckns, isValidTckn } from '../../../../src/core/pii/detectors'
import { findEmails } from '../../../../src/core/pii/email'
import { READS_AT, READS_DIGIT, READS_OTHER, detectionView, originalRange, readsAs, triggerTable } from '../../../../src/core/pii/normalize'
import type { CallRecord } from '../../../../src/shared/domain'

const record = (extra: Record<string, unknown>): CallRecord => ({
  callId: 'c1',
  callAt: 0,
  callDate: '2026-01-01T00:00:00Z',
  title: '',
  summary: '',
  analysis: [],
  extra
})

/** A value `levels` containers deep around `leaf`. */
function nested(levels: number, leaf: unknown): unknown {
  let v = leaf
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { down: v }
  return v
}

describe('the guard on unknown fields', () => {
  it('masks numbers that read as a phone or a TCKN, and leaves other numbers as numbers', () => {
    const g = guardRecord(
      record({ callerNumber: 905321234567, nationalId: 10000000146, duration: 42, score: 4.5, ticket: 2024123456, nothing: null })
    )
    expect(g.extra).toEqual({ callerNumber: MASK, nationalId: MASK, duration: 42, score: 4.5, ticket: 2024123456, nothing: null })
  })

  it('masks keys that are personal data, keeping every value', () => {
    const g = guardRecord(record({ 'ayse@example.com': 'not', 'ali@firma.com.tr': 1, '0532 123 45 67': true, plain: 'x' }))
    expect(g.extra).toEqual({ [MASK]: 'not', [`${MASK} 2`]: 1, [`${MASK} 3`]: true, plain: 'x' })
  })

  it('replaces whatever nests deeper than 32 levels, instead of passing it unread', () => {
    const g = guardRecord(record({ deep: nested(40, { phone: '0532 123 45 67', n: 905321234567 }) }))
    const text = JSON.stringify(g.extra)
    expect(text).not.toContain('0532')
    expect(text).not.toContain('905321234567')
    expect(text).toContain(MASK)
    // Within the bound everything is read and kept.
    expect(maskDeep(nested(30, { phone: '0532 123 45 67', keep: 'ok' }))).toEqual(nested(30, { phone: MASK, keep: 'ok' }))
  })
})

describe('normalization before detection', () => {
  it('masks on the original text and keeps every other character as it was', () => {
    expect(maskText('Ara: ０５３２ １２３ ４５ ６７! Ｆａｔｕｒａ ①')).toBe(`Ara: ${MASK}! Ｆａｔｕｒａ ①`)
    expect(maskText('Mail: ay\u200bse@exam\u200cple.com\u200b.')).toBe(`Mail: ${MASK}\u200b.`)
    expect(maskText('Not\u00a0: 0532\u00a0123\u00a045\u00a067\u00a0tamam')).toBe(`Not\u00a0: ${MASK}\u00a0tamam`)
    const calm = 'Ｆｕｌｌ ｗｉｄｔｈ ｔｅｘｔ ve ﬁ ligatürü, 12 adet'
    expect(maskText(calm)).toBe(calm)
  })

  it('maps every unit of the view back to its code point in the original', () => {
    const original = 'a\u200b０😀b'
    const view = detectionView(original)
    expect(view.text).toBe('a0😀b')
    expect(originalRange(view, 1, 2)).toEqual([2, 3])
    expect(originalRange(view, 2, 4)).toEqual([3, 5])
    expect(originalRange(view, 0, view.text.length)).toEqual([0, original.length])
  })
})

describe('the e-mail scanner', () => {
  // The old detector, with combining marks allowed as the scanner allows them.
  const REGEX = /[\p{L}\p{N}\p{M}._%+\-']+@[\p{L}\p{N}\p{M}-]+(?:\.[\p{L}\p{N}\p{M}-]+)*\.\p{L}{2,}/gu
  const viaRegex = (t: string): Array<[number, number]> => [...t.matchAll(REGEX)].map((m) => [m.index, m.index + m[0].length])

  it('finds exactly what the regex finds, on 5,000 random short texts', () => {
    let seed = 19
    const rand = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
    const alphabet = ['a', 'b', 'ş', 'İ', '1', '.', '.', '-', '_', '@', '@', ' ', 'co', 'tr', "'", '+', 'é', 'e\u0301', '😀', '(', 'x.y']
    for (let i = 0; i < 5_000; i++) {
      const text = Array.from({ length: 3 + Math.floor(rand() * 25) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('')
      expect(findEmails(text), JSON.stringify(text)).toEqual(viaRegex(text))
    }
  })

  it('handles the adversarial shapes, with the same answers', () => {
    for (const text of [
      `${'a'.repeat(4_000)}@`,
      `${'a'.repeat(4_000)}@example.com`,
      `${'a'.repeat(3_000)}@${'b'.repeat(3_000)}`,
      'a@'.repeat(2_000),
      `x@${'b.'.repeat(2_000)}`,
      `${'.'.repeat(3_000)}@x.com`
    ])
      expect(findEmails(text)).toEqual(viaRegex(text))
  })

  it('masks a 100,000-letter text with one "@" and leaves it unchanged', () => {
    const text = `${'a'.repeat(50_000)}@${'b'.repeat(50_000)}`
    expect(maskText(text)).toBe(text)
    expect(maskText(`${'a'.repeat(99_000)}@example.com`)).toBe(MASK)
  })
})

describe('grouped TCKNs', () => {
  // The rule as a regex: a candidate at every group start, kept when the checksum holds.
  const CANDIDATE = /(?<!\d)(?=([1-9](?:[ \t.\-/_\u2010-\u2015\u2212]?\d){10})(?!\d))/g
  function viaRegex(text: string): Array<[number, number]> {
    const out: Array<[number, number]> = []
    let floor = 0
    for (const m of text.matchAll(CANDIDATE)) {
      if (m.index < floor || !isValidTckn(m[1]!.replace(/\D/g, ''))) continue
      out.push([m.index, m.index + m[1]!.length])
      floor = m.index + m[1]!.length
    }
    return out
  }

  it('finds exactly what the regex rule finds, on 5,000 random texts', () => {
    let seed = 7
    const rand = (): number => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32
    const parts = ['10000000146', '100 000 001 46', '1', '5', '0', '7', ' ', ' ', '.', '-', '--', 'a', '12345', '3']
    for (let i = 0; i < 5_000; i++) {
      const text = Array.from({ length: 2 + Math.floor(rand() * 12) }, () => parts[Math.floor(rand() * parts.length)]).join('')
      expect(findTckns(text), JSON.stringify(text)).toEqual(viaRegex(text))
    }
  })

  it('finds a valid number one group after a failed candidate', () => {
    expect(maskText('Kimlik 5 100 000 001 46 olarak verildi')).toBe(`Kimlik 5 ${MASK} olarak verildi`)
    expect(maskText('100 000 001 47')).toBe('100 000 001 47')
  })
})

describe("the guard's pre-check", () => {
  it('reads every character as readsAs does, ASCII digits and "@" included', () => {
    const table = triggerTable()
    for (let c = 0; c < 0x10000; c++) {
      const want = c >= 48 && c <= 57 ? READS_DIGIT : c === 64 ? READS_AT : c >= 0x80 ? readsAs(c) : READS_OTHER
      if (table[c] !== want) expect.fail(`U+${c.toString(16)}: the table says ${table[c]}, readsAs ${want}`)
    }
  })

  it('lets a text through unread only when it cannot hold personal data', () => {
    expect(maskText('müşteri iade istedi, çözüldü')).toBe('müşteri iade istedi, çözüldü')
    expect(maskText('İade: ０５３２ １２３ ４５ ６７')).toBe(`İade: ${MASK}`)
    expect(maskText('şikâyet x＠example.com')).toBe(`şikâyet ${MASK}`)
    expect(maskText('görüşme 12 ve 0532 123 45 67')).toBe(`görüşme 12 ve ${MASK}`)
  })
})
