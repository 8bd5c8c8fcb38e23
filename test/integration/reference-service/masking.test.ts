import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningService } from '../../../src/reference-service'
import { isValidTckn, maskText } from '../../../src/reference-service/masking'
import { login, page, start } from './helpers'

const PHONES = [
  '+90 532 123 45 67',
  '+905321234567',
  '+90 (532) 123 45 67',
  '+90-532-123-45-67',
  '0090 532 123 45 67',
  '00905321234567',
  '0532 123 45 67',
  '05321234567',
  '0532-123-45-67',
  '0532.123.45.67',
  '0 532 123 45 67',
  '0 (212) 123 45 67',
  '(0212) 123 45 67',
  '0212 123 4567',
  '0216-555-44-33',
  '444 12 34',
  '4441234',
  '444 0 123',
  '0850 222 33 44',
  '850 222 33 44',
  '0800 211 00 11',
  '532 123 45 67',
  '(532) 123 4567',
  '532-123-4567',
  '+44 20 7946 0958',
  '+1 (415) 555-0100',
  '+4915112345678',
  '0044 20 7946 0958'
]
const VALID_TCKNS = ['10000000146', '12345678950', '38723916582']
const INVALID_TCKNS = ['12345678901', '10000000147', '38723916583']
const EMAILS = ['ayse.yilmaz@gmail.com', 'MEHMET_K@FIRMA.COM.TR', 'o.celik+fatura@outlook.com.tr', 'şule@örnek.com.tr']

describe('masking of title and summary', () => {
  it('checks TCKNs with both check digits', () => {
    for (const t of VALID_TCKNS) expect(isValidTckn(t), t).toBe(true)
    for (const t of INVALID_TCKNS) expect(isValidTckn(t), t).toBe(false)
    expect(isValidTckn('01234567890')).toBe(false)
  })

  it.each(PHONES)('masks the phone number %s inside Turkish text', (phone) => {
    expect(maskText(`Müşteri ${phone} numarasından aradı.`)).toBe('Müşteri [MASKED] numarasından aradı.')
    expect(maskText(`Numara: ${phone}, tekrar aranacak`)).toBe('Numara: [MASKED], tekrar aranacak')
  })

  it.each(EMAILS)('masks the e-mail address %s', (email) => {
    expect(maskText(`E-posta: ${email}.`)).toBe('E-posta: [MASKED].')
  })

  it('masks valid TCKNs and leaves other 11-digit numbers alone', () => {
    for (const t of VALID_TCKNS) expect(maskText(`TCKN ${t} alındı`)).toBe('TCKN [MASKED] alındı')
    for (const t of INVALID_TCKNS) expect(maskText(`Referans ${t} alındı`)).toBe(`Referans ${t} alındı`)
  })

  it('leaves dates, times, amounts and order numbers readable', () => {
    const text = '12.03.2025 14:30 tarihinde 1.250,50 TL iade, sipariş SP-48213, 3 gün, 2025 yılı'
    expect(maskText(text)).toBe(text)
  })

  it('masks several values in one text and keeps Turkish letters around them', () => {
    expect(maskText('İPTAL: ışık@ev.com ve 0532 111 22 33; TCKN 10000000146. Şikayet İstanbul.')).toBe(
      'İPTAL: [MASKED] ve [MASKED]; TCKN [MASKED]. Şikayet İstanbul.'
    )
  })
})

describe('masking through HTTP', () => {
  let s: RunningService
  let token: string
  const at = '2025-02-10T10:00:00Z'
  beforeAll(async () => {
    s = await start({ calls: 10 })
    token = (await login(s.url)).access_token
    s.admin.addRawCall({
      at,
      title: `Geri arama ${PHONES[0]} / ${VALID_TCKNS[0]}`,
      summary: [...PHONES, ...EMAILS, ...VALID_TCKNS].join(' | ') + ` | ref ${INVALID_TCKNS[0]}`
    })
  })
  afterAll(() => s.stop())

  it('serves raw texts masked and never serves a phone field', async () => {
    const p = await page(s.url, token, { startTime: '2025-02-10T13:00:00', endTime: '2025-02-10T13:00:00', results: null, take: 10 })
    expect(p.totalCount).toBe(1)
    const item = p.items[0]!
    expect(item.title).toBe('Geri arama [MASKED] / [MASKED]')
    const parts = item.summary.split(' | ')
    expect(parts.slice(0, -1).every((x) => x === '[MASKED]')).toBe(true)
    expect(parts.at(-1)).toBe(`ref ${INVALID_TCKNS[0]}`)
    expect(JSON.stringify(item)).not.toMatch(/phone/i)
  })
})
