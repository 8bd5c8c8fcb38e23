import { describe, it, expect } from 'vitest'
import { maskText, guardRecord, isValidTckn, MASK } from '../../../../src/core/pii'
import type { CallRecord } from '../../../../src/shared/domain'

// Deterministic generator so the corpus is the same on every run.
function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = s
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const rand = rng(20260)
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
const digits = (n: number): string => Array.from({ length: n }, () => String(Math.floor(rand() * 10))).join('')

function tckn(): string {
  for (;;) {
    const d = [1 + Math.floor(rand() * 9), ...Array.from({ length: 8 }, () => Math.floor(rand() * 10))]
    const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!
    const even = d[1]! + d[3]! + d[5]! + d[7]!
    const d10 = (((odd * 7 - even) % 10) + 10) % 10
    const d11 = (d.reduce((a, b) => a + b, 0) + d10) % 10
    const s = [...d, d10, d11].join('')
    if (isValidTckn(s)) return s
  }
}
function invalidEleven(): string {
  for (;;) {
    const s = String(1 + Math.floor(rand() * 9)) + digits(10)
    if (!isValidTckn(s)) return s
  }
}

/** The spellings of one ten-digit Turkish number `aaa bbb cc dd`. */
function trSpellings(area: string, sub: string): string[] {
  const [b, c, d] = [sub.slice(0, 3), sub.slice(3, 5), sub.slice(5, 7)]
  return [
    `0${area}${sub}`,
    `0${area} ${b} ${c} ${d}`,
    `0${area} ${b} ${c}${d}`,
    `0 ${area} ${b} ${c} ${d}`,
    `(0${area}) ${b} ${c} ${d}`,
    `0 (${area}) ${b} ${c} ${d}`,
    `+90 ${area} ${b} ${c} ${d}`,
    `+90${area}${sub}`,
    `+90 (${area}) ${b}-${c}-${d}`,
    `0090 ${area} ${b} ${c} ${d}`,
    `90 ${area} ${b} ${c} ${d}`,
    `${area} ${b} ${c} ${d}`,
    `${area}${sub}`,
    `0${area}-${b}-${c}-${d}`,
    `0${area}.${b}.${c}.${d}`,
    `+90-${area}-${b}-${c}-${d}`,
    `(${area}) ${b} ${c} ${d}`,
    `0${area} ${sub}`,
    `+90 ${area} ${b} ${c}${d}`
  ]
}

const templates: Array<(x: string) => string> = [
  (x) => `Müşteri ${x} numarasından aradı.`,
  (x) => `İletişim: ${x}`,
  (x) => `${x} ile görüşüldü, geri dönüş istendi`,
  (x) => `Arayan (${x}) şikayetini iletti.`,
  (x) => `Tel:${x}; not alındı.`,
  (x) => `Customer said "${x}" twice`,
  (x) => `Bilgi: ${x}, teyit edildi.`
]

function positives(): Array<{ kind: string; value: string }> {
  const out: Array<{ kind: string; value: string }> = []
  const mobile = ['530', '532', '533', '535', '536', '541', '542', '543', '544', '545', '505', '506', '551', '552', '561']
  for (let i = 0; i < 5; i++) for (const s of trSpellings(pick(mobile), digits(7))) out.push({ kind: 'mobile', value: s })
  const geo = ['212', '216', '312', '232', '224', '242', '322', '442', '462', '352', '262', '274']
  for (let i = 0; i < 3; i++) for (const s of trSpellings(pick(geo), digits(7))) out.push({ kind: 'geographic', value: s })
  for (const area of ['850', '800', '900'])
    for (const s of trSpellings(area, digits(7)).slice(0, 10)) out.push({ kind: 'service', value: s })
  for (let i = 0; i < 4; i++) {
    const [a, b, c, d] = [digits(1), digits(1), digits(1), digits(1)]
    for (const s of [
      `444 ${a} ${b}${c}${d}`,
      `444 ${a}${b} ${c}${d}`,
      `444${a}${b}${c}${d}`,
      `444 ${a}${b}${c}${d}`,
      `0 444 ${a}${b} ${c}${d}`,
      `444-${a}${b}-${c}${d}`
    ])
      out.push({ kind: '444', value: s })
  }
  for (const s of [
    '+44 20 7946 0958',
    '+1 (415) 555-2671',
    '+49 30 12345678',
    '+33 1 23 45 67 89',
    '+971 50 123 4567',
    '0044 20 7946 0958',
    '+4915112345678',
    '+7 495 123-45-67',
    '+31 6 12345678',
    '+39 06 6982 1234',
    '+994 12 498 12 34',
    '+1-202-555-0143',
    '+43 1 5123456',
    '+966 50 123 4567',
    '+380 44 123 4567',
    '+86 10 6552 9988',
    '0049 89 1234567',
    '+34 912 345 678',
    '+358 40 1234567',
    '+30 21 0123 4567'
  ])
    out.push({ kind: 'international', value: s })
  const users = [
    'ayse.yilmaz',
    'mehmet_kaya',
    'info',
    'destek+fatura',
    'şükrü.öztürk',
    'a.b.c',
    'ceren99',
    'o.celik-2',
    'muhasebe',
    "o'brien"
  ]
  const domains = [
    'example.com',
    'firma.com.tr',
    'mail.örnek.com.tr',
    'gmail.com',
    'sub.domain.co.uk',
    'hotmail.com.tr',
    'callsight.local.test'
  ]
  for (let i = 0; i < 40; i++) out.push({ kind: 'email', value: `${pick(users)}${i % 3 === 0 ? digits(2) : ''}@${pick(domains)}` })
  for (let i = 0; i < 40; i++) out.push({ kind: 'tckn', value: tckn() })
  out.push(...hardened())
  return out
}

/**
 * Gaps the guard once had: spellings it used to let through. Non-breaking and double spaces,
 * "/" "_" and dash separators, 2-2-3 / 4-3 / 3-1-3 groupings, full-width digits and "＠",
 * invisible characters inside a number or an address, grouped TCKNs.
 */
function hardened(): Array<{ kind: string; value: string }> {
  const out: Array<{ kind: string; value: string }> = []
  const areas = ['532', '505', '216', '312', '850', '242']
  const fullWidth = (s: string): string => s.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)))
  for (let i = 0; i < 6; i++) {
    const area = areas[i]!
    const sub = digits(7)
    const [b, c, d] = [sub.slice(0, 3), sub.slice(3, 5), sub.slice(5, 7)]
    for (const value of [
      `0${area}\u00a0${b}\u00a0${c}\u00a0${d}`,
      `+90\u00a0${area}\u00a0${b}\u00a0${c}${d}`,
      `0${area}\u202f${b}\u202f${c}\u202f${d}`,
      `0${area}  ${b}  ${c}  ${d}`,
      `0${area}/${b}/${c}/${d}`,
      `0${area}_${b}_${c}_${d}`,
      `0${area} / ${b} ${c} ${d}`,
      `0${area}\u2013${b}\u2013${c}\u2013${d}`,
      `0${area} ${sub.slice(0, 2)} ${sub.slice(2, 4)} ${sub.slice(4)}`,
      `0${area} ${sub.slice(0, 4)} ${sub.slice(4)}`,
      `0${area} ${sub.slice(0, 3)} ${sub.slice(3, 4)} ${sub.slice(4)}`,
      fullWidth(`0${area} ${b} ${c} ${d}`),
      fullWidth(`+90${area}${sub}`),
      `0${area}\u200b${b} ${c} ${d}`,
      `0${area} ${b}\u00ad${c} ${d}`,
      `0${area}\u2060${b}\ufeff${c}${d}`
    ])
      out.push({ kind: 'hardened phone', value })
  }
  out.push(
    { kind: 'hardened phone', value: '0850 222 0 333' },
    { kind: 'hardened phone', value: '0532 12 34 567' },
    { kind: 'hardened phone', value: '0532 1234 567' }
  )
  const users = ['ayse.yilmaz', 'mehmet_kaya', 'destek+fatura', 'şükrü.öztürk']
  for (let i = 0; i < 4; i++) {
    const user = users[i]!
    for (const value of [
      `${user}＠example.com`,
      `${user}﹫firma.com.tr`,
      `${user.slice(0, 2)}\u200b${user.slice(2)}@example.com`,
      `${user}@exam\u200cple.com.tr`,
      `${user.slice(0, 3)}\u00ad${user.slice(3)}@gmail.com`,
      `${user}\u200d@hotmail.com`,
      `${user}@firma\u2060.com`,
      'ａｙｓｅ＠ｏｒｎｅｋ．ｃｏｍ'
    ])
      out.push({ kind: 'hardened email', value })
  }
  for (let i = 0; i < 8; i++) {
    const id = tckn()
    for (const value of [
      `${id.slice(0, 3)} ${id.slice(3, 6)} ${id.slice(6, 9)} ${id.slice(9)}`,
      `${id.slice(0, 3)}.${id.slice(3, 6)}.${id.slice(6, 9)}.${id.slice(9)}`,
      `${id.slice(0, 5)}-${id.slice(5)}`,
      fullWidth(id),
      `${id.slice(0, 4)}\u200b${id.slice(4)}`
    ])
      out.push({ kind: 'hardened tckn', value })
  }
  out.push({ kind: 'hardened tckn', value: '100 000 001 46' })
  return out
}

function negatives(): Array<{ kind: string; value: string }> {
  const out: Array<{ kind: string; value: string }> = []
  for (let i = 0; i < 50; i++) out.push({ kind: 'eleven-digit bad checksum', value: invalidEleven() })
  for (let i = 0; i < 10; i++) {
    out.push({ kind: 'order', value: `SIP-2024-${digits(6)}` })
    out.push({ kind: 'order', value: `Sipariş no ${digits(7)}` })
    out.push({ kind: 'order', value: `ORD${digits(8)}` })
    out.push({ kind: 'order', value: `#${digits(9)}` })
    out.push({ kind: 'invoice', value: `Fatura no ${pick(['2019', '2020', '2021', '2022', '2023', '2024', '2025'])}${digits(6)}` })
    out.push({ kind: 'customer', value: `müşteri no ${pick(['1', '6', '7'])}${digits(9)}` })
  }
  for (let i = 0; i < 10; i++) {
    const [d, m, y] = [
      String(1 + Math.floor(rand() * 28)).padStart(2, '0'),
      String(1 + Math.floor(rand() * 12)).padStart(2, '0'),
      String(2015 + Math.floor(rand() * 12))
    ]
    out.push({ kind: 'date', value: `${y}-${m}-${d}` })
    out.push({ kind: 'date', value: `${d}.${m}.${y}` })
    out.push({ kind: 'date', value: `${d}/${m}/${y} 14:${m}` })
    out.push({ kind: 'date', value: `${y}-${m}-${d}T10:${m}:${d}` })
    out.push({ kind: 'date', value: `${y}${m}${d}` })
  }
  for (let i = 0; i < 10; i++) {
    out.push({ kind: 'amount', value: `${Math.floor(rand() * 9) + 1}.${digits(3)},${digits(2)} TL` })
    out.push({ kind: 'amount', value: `₺${Math.floor(rand() * 90) + 10}.${digits(3)},${digits(2)}` })
    out.push({ kind: 'amount', value: `$${Math.floor(rand() * 9) + 1},${digits(3)},${digits(3)}.${digits(2)}` })
    out.push({ kind: 'amount', value: `${Math.floor(rand() * 9) + 1}.${digits(3)}.${digits(3)},${digits(2)} TL` })
  }
  for (let i = 0; i < 10; i++) {
    const groups = Array.from({ length: 5 }, () => digits(4))
    out.push({ kind: 'iban', value: `TR${digits(2)} 0006 ${groups.join(' ')} ${digits(2)}` })
    out.push({ kind: 'iban', value: `${groups[0]} ${groups[1]} ${groups[2]}` })
    out.push({ kind: 'iban', value: `IBAN son dört hane ${groups[3]}` })
  }
  for (const s of [
    'IP 192.168.1.10',
    'saat 14:30:45',
    'v2.3.14',
    '%45,5 oranında',
    'posta kodu 34710',
    'dahili 4521',
    '2019-2024 arası',
    '@kullanici etiketlendi',
    'ali@ diye yazdı',
    'bilgi @ firma',
    'ref 12-34-56',
    'kod 123 456',
    'adet: 12 345',
    'fiyat 1 250 TL',
    'TCKN istenmedi',
    'çağrı id 7f3a-44b2',
    'skor 4.5/5',
    '3 x 250 ml',
    'kat 4 daire 12',
    'ISO 27001'
  ])
    out.push({ kind: 'misc', value: s })
  // Near-misses for the wider separators and the normalization of separators and digits.
  for (let i = 0; i < 6; i++) {
    const [d, m, y] = [
      String(1 + Math.floor(rand() * 28)).padStart(2, '0'),
      String(1 + Math.floor(rand() * 12)).padStart(2, '0'),
      String(2015 + Math.floor(rand() * 12))
    ]
    out.push({ kind: 'separators', value: `rapor_${y}_${m}_${d}_v${digits(1)}.pdf` })
    out.push({ kind: 'separators', value: `ref ${y}/${m}/${d}-${digits(3)}` })
    out.push({ kind: 'separators', value: `tarih ${d} ${m} ${y}, saat ${m} ${d}` })
    out.push({ kind: 'separators', value: `kargo takip ${digits(4)} ${digits(4)} ${digits(4)}` })
    out.push({ kind: 'separators', value: `seri no ${digits(1)} ${digits(4)} ${digits(2)}` })
    out.push({ kind: 'separators', value: `poliçe 000${digits(1)}-${digits(3)}-${digits(2)}` })
    out.push({ kind: 'normalized', value: `ＡＢＣ－${digits(3)}` })
    out.push({ kind: 'normalized', value: `②③ nolu madde, ${digits(2)}\u00a0TL` })
  }
  for (const s of [
    'ISBN 978-605-1234-56-7',
    'iPhone 15 Pro 256 GB',
    '1/2/3/4/5 puan',
    '₺1.234,56',
    'dosya_v2_final_3.docx',
    'kullanıcı adı ali_veli_42',
    'oda 3 / kat 12 / blok 4'
  ])
    out.push({ kind: 'misc', value: s })
  return out
}

describe('PII corpus', () => {
  const pos = positives()
  const neg = negatives()

  it('holds at least 200 positives and 200 near-miss negatives', () => {
    expect(pos.length).toBeGreaterThanOrEqual(200)
    expect(neg.length).toBeGreaterThanOrEqual(200)
  })

  it('masks every positive completely, and nothing around it (zero leaks)', () => {
    const leaks: string[] = []
    pos.forEach((p, i) => {
      const t = templates[i % templates.length]!
      const got = maskText(t(p.value))
      if (got !== t(MASK)) leaks.push(`${p.kind}: ${JSON.stringify(p.value)} -> ${JSON.stringify(got)}`)
    })
    expect(leaks).toEqual([])
  })

  it('keeps every near-miss (zero false positives)', () => {
    const hits: string[] = []
    neg.forEach((n, i) => {
      const text = templates[i % templates.length]!(n.value)
      if (maskText(text) !== text) hits.push(`${n.kind}: ${n.value}`)
    })
    const rate = hits.length / neg.length
    console.log(
      `PII corpus: ${pos.length} positives, ${neg.length} negatives, ${hits.length} false positives (${(rate * 100).toFixed(2)}%)`,
      hits
    )
    expect(hits).toEqual([])
    expect(rate).toBe(0)
  })
})

describe('guardRecord', () => {
  it('masks title, summary, analysis and unknown string fields deeply, and keeps identifiers', () => {
    const r: CallRecord = {
      callId: 'c-05321234567',
      callAt: 1_700_000_000_000,
      callDate: '2023-11-14T22:13:20Z',
      title: 'Arayan 0532 123 45 67',
      summary: 'e-posta ali@firma.com.tr, TCKN 10000000146',
      analysis: [{ key: 'phone', friendlyName: 'Telefon', value: '+90 212 555 12 12' }],
      extra: { agent: { note: 'geri ara 0216 444 55 66', tags: ['ok', 'x@y.io'] }, count: 3, flag: null }
    }
    const g = guardRecord(r)
    expect(g.callId).toBe('c-05321234567')
    expect(g.callDate).toBe('2023-11-14T22:13:20Z')
    expect(g.title).toBe('Arayan [MASKED]')
    expect(g.summary).toBe('e-posta [MASKED], TCKN [MASKED]')
    expect(g.analysis).toEqual([{ key: 'phone', friendlyName: 'Telefon', value: '[MASKED]' }])
    expect(g.extra).toEqual({ agent: { note: 'geri ara [MASKED]', tags: ['ok', '[MASKED]'] }, count: 3, flag: null })
    // The input is not changed in place.
    expect(r.title).toBe('Arayan 0532 123 45 67')
  })

  it('checks the TCKN checksum both ways', () => {
    expect(isValidTckn('10000000146')).toBe(true)
    expect(isValidTckn('10000000147')).toBe(false)
    expect(isValidTckn('01234567890')).toBe(false)
  })
})
