/**
 * Synthetic call texts in Turkish and English, rebuilt deterministically from
 * (seed, key, version). The raw texts deliberately carry phone numbers in many formats,
 * e-mail addresses and valid TCKNs, so masking runs on every served record.
 */
import { Rng, mix } from './rng'
import type { AnalysisItem } from './types'

type Lang = 'tr' | 'en'
type Theme = 'billing' | 'cancel' | 'complaint' | 'tech' | 'refund' | 'info' | 'sales' | 'address' | 'campaign' | 'payment'
const THEMES: Theme[] = ['billing', 'cancel', 'complaint', 'tech', 'refund', 'info', 'sales', 'address', 'campaign', 'payment']

const FIRST = [
  'Ayşe',
  'Mehmet',
  'Ömer',
  'Çağla',
  'Gülşen',
  'İbrahim',
  'Şule',
  'Uğur',
  'Işıl',
  'Emre',
  'Zeynep',
  'Burak',
  'Özge',
  'Barış',
  'Elif',
  'Can'
]
const LAST = [
  'Yılmaz',
  'Kaya',
  'Demir',
  'Çelik',
  'Şahin',
  'Öztürk',
  'Aydın',
  'Arslan',
  'Doğan',
  'Kılıç',
  'Güneş',
  'Özdemir',
  'Koç',
  'Erdoğdu'
]
const CITIES = [
  'İstanbul',
  'İzmir',
  'Ankara',
  'Eskişehir',
  'Muğla',
  'Çanakkale',
  'Şanlıurfa',
  'Diyarbakır',
  'Iğdır',
  'Ağrı',
  'Bursa',
  'Gümüşhane'
]
const DOMAINS = ['gmail.com', 'hotmail.com', 'outlook.com.tr', 'firma.com.tr', 'yahoo.com', 'example.org']
export const AGENTS = [
  'Derya Aksoy',
  'Serkan Uçar',
  'Gökhan Işık',
  'Nilüfer Şen',
  'Tuğba Ören',
  'Hakan Çınar',
  'Selin Ağaoğlu',
  'Okan Yücel',
  'Merve İnce',
  'Kerem Gündüz'
]

const TITLES: Record<Lang, Record<Theme, string[]>> = {
  tr: {
    billing: ['Fatura itirazı - {city}', 'Faturada fazla ücret şikayeti', 'Fatura tutarı yüksek geldi', 'Fatura detayı talebi'],
    cancel: ['İPTAL talebi: {name}', 'Abonelik iptali', 'Hat iptali ve cayma bedeli', 'İptal ve iade süreci'],
    complaint: ['Müşteri şikayeti ({city})', 'Şikayet: kurye gecikmesi', 'Hizmet kalitesi şikayeti', 'Tekrarlayan şikayet'],
    tech: ['İnternet kesintisi - modem ışık yanmıyor', 'Modemde kırmızı ışık', 'Bağlantı sorunu {city}', 'Yavaş internet şikayeti'],
    refund: ['İade talebi - sipariş {order}', 'Ücret iadesi bekleniyor', 'Ürün iadesi: kargo', 'Çift çekim iadesi'],
    info: ['Bilgi talebi: tarife', 'Kampanya koşulları hakkında bilgi', 'Hesap bilgisi sorgusu', 'Taahhüt bitiş tarihi sorgusu'],
    sales: ['Yeni hat satışı', 'Fiber paket yükseltme', 'Ek paket satışı', 'Cihaz kampanyası satışı'],
    address: ['Adres değişikliği - {city}', 'Fatura adresi güncelleme', 'Taşınma nedeniyle nakil', 'Adres doğrulama'],
    campaign: ['Kampanya itirazı', 'İndirim tanımlanmadı', 'Sadakat kampanyası teklifi', 'Kampanya katılım talebi'],
    payment: ['Ödeme alınamadı', 'Kredi kartı çekim hatası', 'Otomatik ödeme talimatı', 'Gecikme faizi itirazı']
  },
  en: {
    billing: ['Billing dispute - {city}', 'Overcharge on invoice', 'Invoice amount too high', 'Invoice breakdown request'],
    cancel: ['Cancellation request: {name}', 'Subscription cancellation', 'Line cancellation and exit fee', 'Cancel and refund'],
    complaint: ['Customer complaint ({city})', 'Complaint: courier delay', 'Service quality complaint', 'Repeated complaint'],
    tech: ['Internet outage - modem light off', 'Red light on modem', 'Connection problem in {city}', 'Slow internet'],
    refund: ['Refund request - order {order}', 'Waiting for refund', 'Product return: shipping', 'Double charge refund'],
    info: ['Information request: tariff', 'Campaign terms question', 'Account information query', 'Contract end date query'],
    sales: ['New line sale', 'Fiber package upgrade', 'Add-on package sale', 'Device campaign sale'],
    address: ['Address change - {city}', 'Billing address update', 'Relocation of service', 'Address verification'],
    campaign: ['Campaign objection', 'Discount not applied', 'Loyalty offer', 'Campaign enrolment'],
    payment: ['Payment failed', 'Credit card charge error', 'Direct debit instruction', 'Late fee objection']
  }
}

const MIDDLES: Record<Lang, Record<Theme, string>> = {
  tr: {
    billing: 'Son faturasında {amount} TL tutarında beklenmeyen bir ücret olduğunu belirtti ve fatura itirazında bulundu.',
    cancel: 'Hizmetten memnun olmadığını, aboneliğini İPTAL etmek istediğini söyledi; cayma bedeli soruldu.',
    complaint: 'Daha önce iletilen şikayetin çözülmediğini, {days} gündür dönüş alamadığını ifade etti.',
    tech: 'Modemdeki ışık yanmıyor, bağlantı sık sık kopuyor; uzaktan kontrol yapıldı ve hat sıfırlandı.',
    refund: '{order} numaralı sipariş için {amount} TL iade talep etti; iade süreci anlatıldı.',
    info: 'Mevcut tarifesi ve ışık hızında fiber seçenekleri hakkında bilgi aldı.',
    sales: 'Fiber internet paketine geçmek istediğini belirtti, aylık {amount} TL teklif sunuldu.',
    address: 'Yeni adresi {city} olarak güncellendi; nakil işlemi başlatıldı.',
    campaign: 'Kampanya indiriminin faturaya yansımadığını söyledi, şikayet kaydı açıldı.',
    payment: 'Kredi kartından {amount} TL ödeme alınamadığını, çekim hatası aldığını bildirdi.'
  },
  en: {
    billing: 'The customer reported an unexpected charge of {amount} TL on the last invoice and disputed it.',
    cancel: 'The customer is unhappy with the service and wants to cancel the subscription; the exit fee was discussed.',
    complaint: 'An earlier complaint is still open and nobody has called back for {days} days.',
    tech: 'The modem light is off and the connection drops often; a remote check was run and the line reset.',
    refund: 'A refund of {amount} TL was requested for order {order}; the refund process was explained.',
    info: 'The caller asked about the current tariff and fiber options.',
    sales: 'The caller wants to move to a fiber package; an offer of {amount} TL per month was made.',
    address: 'The new address in {city} was recorded and the relocation started.',
    campaign: 'The campaign discount was not applied to the invoice; a complaint was opened.',
    payment: 'A card payment of {amount} TL failed with a charge error.'
  }
}

const OPENINGS: Record<Lang, string[]> = {
  tr: [
    'Müşteri {name}, {city} ilinden aradı.',
    'Arayan kişi kendini {name} olarak tanıttı.',
    '{name} isimli müşteri ile görüşüldü.',
    'Müşteri {city} şubesi üzerinden yönlendirildi.'
  ],
  en: [
    '{name} called from {city}.',
    'The caller introduced themselves as {name}.',
    'Spoke with customer {name}.',
    'The customer was transferred from the {city} branch.'
  ]
}

const PERSONAL: Record<Lang, string[]> = {
  tr: [
    'İletişim numarası {phone} olarak kaydedildi.',
    'Müşteri e-posta adresini {email} olarak verdi.',
    'Kimlik doğrulaması için TCKN {tckn} alındı.',
    'Alternatif numara: {phone}.',
    'Ek iletişim: {email}, {phone}.',
    'Geri dönüş için {phone} numarasından aranmak istiyor.'
  ],
  en: [
    'Contact number recorded as {phone}.',
    'The customer gave the e-mail address {email}.',
    'National ID {tckn} was taken for verification.',
    'Alternative number: {phone}.',
    'Other contact: {email}, {phone}.',
    'Wants a call back on {phone}.'
  ]
}

const CLOSINGS: Record<Lang, string[]> = {
  tr: [
    'Talep kaydı oluşturuldu.',
    'Müşteri bilgilendirildi, görüşme olumlu sonlandı.',
    'Konu ilgili birime aktarıldı.',
    'Müşteri memnun kalmadı, şikayet kaydı açıldı.',
    'İade süreci hakkında bilgi verildi.'
  ],
  en: [
    'A request was created.',
    'The customer was informed and the call ended positively.',
    'The case was passed to the responsible team.',
    'The customer was not satisfied; a complaint was opened.',
    'The refund process was explained.'
  ]
}

const TOPICS: Record<Theme, string> = {
  billing: 'Fatura',
  cancel: 'İptal',
  complaint: 'Şikayet',
  tech: 'Teknik Arıza',
  refund: 'İade',
  info: 'Bilgi',
  sales: 'Satış',
  address: 'Adres',
  campaign: 'Kampanya',
  payment: 'Ödeme'
}

const PHONE_FORMATS: Array<(r: Rng) => string> = [
  (r) => `+90 5${r.digits(2)} ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  (r) => `+905${r.digits(9)}`,
  (r) => `0090 5${r.digits(2)} ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  (r) => `05${r.digits(2)} ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  (r) => `05${r.digits(9)}`,
  (r) => `0 (212) ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  (r) => `(0216) ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  (r) => `444 ${r.digits(2)} ${r.digits(2)}`,
  (r) => `0850 ${r.digits(3)} ${r.digits(2)} ${r.digits(2)}`,
  (r) => `0800-${r.digits(3)}-${r.digits(2)}-${r.digits(2)}`,
  (r) => `5${r.digits(2)}-${r.digits(3)}-${r.digits(4)}`,
  (r) => `(5${r.digits(2)}) ${r.digits(3)} ${r.digits(4)}`,
  (r) => `0532.${r.digits(3)}.${r.digits(2)}.${r.digits(2)}`,
  (r) => `+44 20 7946 ${r.digits(4)}`,
  (r) => `+1 (415) 555-${r.digits(4)}`,
  (r) => `+49 151 ${r.digits(8)}`
]

const ASCII: Record<string, string> = {
  ç: 'c',
  ğ: 'g',
  ı: 'i',
  İ: 'i',
  ö: 'o',
  ş: 's',
  ü: 'u',
  Ç: 'c',
  Ğ: 'g',
  Ö: 'o',
  Ş: 's',
  Ü: 'u',
  I: 'i'
}
const asciiCache = new Map<string, string>()
function ascii(s: string): string {
  let a = asciiCache.get(s)
  if (a === undefined) {
    a = s.replace(/[çğıİöşüÇĞÖŞÜI]/g, (c) => ASCII[c] ?? c).toLowerCase()
    asciiCache.set(s, a)
  }
  return a
}

export function validTckn(r: Rng): string {
  const d = [r.int(1, 9), ...Array.from({ length: 8 }, () => r.int(0, 9))]
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!
  const even = d[1]! + d[3]! + d[5]! + d[7]!
  d.push((((odd * 7 - even) % 10) + 10) % 10)
  d.push(d.reduce((a, b) => a + b, 0) % 10)
  return d.join('')
}

// Templates are split once into literal and slot parts: filling them runs for every served
// record, and a regex replace per template was the largest cost of a page.
type Part = string | { slot: string }
const compiled = new Map<string, Part[]>()

function compile(template: string): Part[] {
  let parts = compiled.get(template)
  if (!parts) {
    parts = template
      .split(/(\{\w+\})/)
      .filter(Boolean)
      .map((p) => (p.startsWith('{') && p.endsWith('}') ? { slot: p.slice(1, -1) } : p))
    compiled.set(template, parts)
  }
  return parts
}

function slotValue(slot: string, r: Rng, name: string): string {
  switch (slot) {
    case 'name':
      return name
    case 'city':
      return r.pick(CITIES)
    case 'phone':
      return r.pick(PHONE_FORMATS)(r)
    case 'email': {
      const e = `${ascii(r.pick(FIRST))}${r.pick(['.', '_', ''])}${ascii(r.pick(LAST))}${r.chance(0.3) ? r.int(1, 99) : ''}@${r.pick(DOMAINS)}`
      return r.chance(0.15) ? e.toUpperCase() : e
    }
    case 'tckn':
      return validTckn(r)
    case 'amount':
      return `${r.int(49, 4999)},${r.pick(['00', '50', '90'])}`
    case 'order':
      return `SP-${r.int(10000, 99999)}`
    case 'days':
      return String(r.int(2, 21))
    default:
      return slot
  }
}

function fill(template: string, r: Rng, name: string): string {
  let out = ''
  for (const part of compile(template)) out += typeof part === 'string' ? part : slotValue(part.slot, r, name)
  return out
}

export interface CallTexts {
  title: string
  summary: string
  language: string
  agentName: string
  durationSeconds: number
}

export function callTexts(seed: number, key: number, version: number, typeIndex: number, answered: boolean): CallTexts {
  const base = new Rng(mix(seed, key, 101))
  const lang: Lang = base.chance(0.7) ? 'tr' : 'en'
  const theme = THEMES[typeIndex % THEMES.length]!
  const name = `${base.pick(FIRST)} ${base.pick(LAST)}`
  let title = fill(base.pick(TITLES[lang][theme]), base, name)
  if (base.chance(0.2))
    title += lang === 'tr' ? ` - geri arama ${fill('{phone}', base, name)}` : ` - call back ${fill('{phone}', base, name)}`
  const agentName = base.pick(AGENTS)
  const durationSeconds = answered ? 30 + Math.floor(base.next() ** 2 * 1500) : base.int(0, 45)
  // Summary and analysis change with the version (late analysis); the title does not.
  const r = new Rng(mix(seed, key, 211 + version))
  const parts = [fill(r.pick(OPENINGS[lang]), r, name), fill(MIDDLES[lang][theme], r, name)]
  const personal = r.int(1, 3)
  for (let i = 0; i < personal; i++) parts.push(fill(r.pick(PERSONAL[lang]), r, name))
  parts.push(r.pick(CLOSINGS[lang]))
  if (version > 0)
    parts.push(
      lang === 'tr' ? `Sonradan yapılan analizle güncellendi (sürüm ${version}).` : `Updated by a later analysis (revision ${version}).`
    )
  return { title, summary: parts.join(' '), language: lang === 'tr' ? 'tr-TR' : 'en-US', agentName, durationSeconds }
}

const ratio = (r: Rng, max = 1): string => (r.next() * max).toFixed(2)

const ANALYSIS: Array<[string, string, (r: Rng, theme: Theme, lang: string) => string]> = [
  ['sentiment', 'Duygu Durumu', (r) => r.pick(['Positive', 'Neutral', 'Negative'])],
  ['topic', 'Konu', (_r, theme) => TOPICS[theme]],
  ['silenceRatio', 'Sessizlik Oranı', (r) => ratio(r, 0.4)],
  ['talkRatio', 'Konuşma Oranı', (r) => (0.3 + r.next() * 0.5).toFixed(2)],
  ['agentScore', 'Temsilci Puanı', (r) => String(r.int(40, 100))],
  ['customerEffort', 'Müşteri Eforu', (r) => String(r.int(1, 5))],
  ['sentimentScore', 'Duygu Skoru', (r) => (r.next() * 2 - 1).toFixed(2)],
  ['holdTimeSeconds', 'Bekletme Süresi (sn)', (r) => String(r.int(0, 300))],
  ['interruptions', 'Söz Kesme Sayısı', (r) => String(r.int(0, 12))],
  ['crossTalkRatio', 'Üst Üste Konuşma Oranı', (r) => ratio(r, 0.2)],
  ['speechRateWpm', 'Konuşma Hızı (kelime/dk)', (r) => String(r.int(100, 190))],
  ['churnRisk', 'Kayıp Riski', (r) => ratio(r)],
  ['resolution', 'Çözüm Durumu', (r) => r.pick(['Çözüldü', 'Çözülmedi', 'Üst birime aktarıldı'])],
  [
    'keywords',
    'Anahtar Kelimeler',
    (r, theme) => [TOPICS[theme].toLocaleLowerCase('tr-TR'), r.pick(['şikayet', 'iade', 'fatura', 'iptal', 'ışık', 'ödeme'])].join(', ')
  ],
  ['language', 'Dil', (_r, _t, lang) => lang],
  ['firstCallResolution', 'İlk Temasta Çözüm', (r) => String(r.chance(0.6))]
]

export function analysisItems(seed: number, key: number, version: number, typeIndex: number, language: string): AnalysisItem[] {
  const r = new Rng(mix(seed, key, 307 + version))
  const theme = THEMES[typeIndex % THEMES.length]!
  const count = r.int(5, 15)
  const items: AnalysisItem[] = []
  // The first five are always there, the rest is a random subset in a fixed order.
  for (let i = 0; i < ANALYSIS.length && items.length < count; i++) {
    const left = count - items.length
    const remaining = ANALYSIS.length - i
    if (i < 5 || r.next() < left / remaining) {
      const [key, friendlyName, value] = ANALYSIS[i]!
      items.push({ key, friendlyName, value: value(r, theme, language) })
    }
  }
  return items
}
