import type { HeaderLanguage } from '../../shared/domain'
import type { ReviewStatus } from '../../shared/review'
import type { AboutWords } from './about-sheet'

/**
 * The words an export writes itself — column headers and the metadata sheet — in the UI
 * language, so a Turkish analyst's workbook reads in Turkish. Downstream tools that match
 * headers by name ask for English with the "English headers" setting (or the CLI's default).
 * Core cannot use the renderer's message files, so the few labels live here, both languages.
 */
export interface HeaderLabels {
  callId: string
  callDate: (zone: string) => string
  title: string
  summary: string
  parameter: string
  parameterKey: string
  value: string
  // The metadata ("Export") sheet.
  aboutSheet: string
  dataSheet: string
  field: string
  calls: string
  rows: string
  exportedAt: string
  timeZone: string
  appVersion: string
  columns: string
  analysisLayout: string
  query: string
  scope: string
  coverage: string
  /** The coverage sentence of the metadata sheet, in the same language as its labels. */
  coverageText: CoverageText
  // Column `review` and the scorecard sheets (docs/review.md).
  reviewStatus: string
  /** A review status's name in the cells (the app's words for it: "Needs follow-up", "Takip gerekli"). */
  statuses: Record<ReviewStatus, string>
  tags: string
  note: string
  score: string
  scorecard: string
  reviewer: string
  reviewedAt: string
  version: string
  total: string
  criticalFailed: string
  yes: string
  no: string
  /** A true or false value in a spreadsheet cell, as the language says it. */
  trueWord: string
  falseWord: string
  /** The metadata sheet's values in words (about-sheet.ts). */
  about: AboutWords
}

/** Words of the coverage sentence; a gap's parts are joined by the caller. */
export interface CoverageText {
  complete: string
  incomplete: (gaps: string) => string
  callType: (types: string) => string
  direction: (direction: number) => string
  results: (results: string) => string
  newRequest: (yes: boolean) => string
  withAnalysis: string
  nothingSynced: string
}

const EN: HeaderLabels = {
  callId: 'Call ID',
  callDate: (zone) => `Call date (${zone})`,
  title: 'Title',
  summary: 'Summary',
  parameter: 'Parameter',
  parameterKey: 'Parameter key',
  value: 'Value',
  aboutSheet: 'Export',
  dataSheet: 'Calls',
  field: 'Field',
  calls: 'Calls',
  rows: 'Rows',
  exportedAt: 'Exported at',
  timeZone: 'Time zone',
  appVersion: 'App version',
  columns: 'Columns',
  analysisLayout: 'Analysis layout',
  query: 'Query',
  scope: 'Scope',
  coverage: 'Coverage',
  coverageText: {
    complete: 'Complete: synced scopes answer the whole query.',
    incomplete: (gaps) => `Incomplete, not synced: ${gaps}. The file may lack calls the service has.`,
    callType: (types) => `call type ${types}`,
    direction: (direction) => `direction ${direction}`,
    results: (results) => `results ${results}`,
    newRequest: (yes) => `new request ${yes}`,
    withAnalysis: 'with analysis',
    nothingSynced: 'nothing synced'
  },
  reviewStatus: 'Review status',
  statuses: { new: 'New', in_review: 'In review', reviewed: 'Reviewed', follow_up: 'Needs follow-up' },
  tags: 'Tags',
  note: 'Note',
  score: 'Score',
  scorecard: 'Scorecard',
  reviewer: 'Reviewer',
  reviewedAt: 'Reviewed at',
  version: 'Version',
  total: 'Total',
  criticalFailed: 'Critical failed',
  yes: 'yes',
  no: 'no',
  trueWord: 'Yes',
  falseWord: 'No',
  about: {
    columnNames: {
      callId: 'Call ID',
      callDate: 'Call date',
      title: 'Title',
      summary: 'Summary',
      analysis: 'Analysis',
      review: 'Review',
      extra: 'Other fields'
    },
    layouts: { wide: 'Wide (one column per parameter)', long: 'Long (one row per parameter)' },
    filters: {
      text: 'Text',
      from: 'From',
      to: 'To',
      callTypes: 'Call types',
      direction: 'Direction',
      results: 'Results',
      hasNewRequest: 'New request',
      analysis: 'Analysis',
      fields: 'Fields',
      sort: 'Sort',
      sortBy: 'Sorted by',
      review: 'Review'
    },
    resultsWords: { answered: 'Answered only', all: 'All results' },
    allCalls: 'All calls',
    selectedRows: (n) => `${n} selected rows of:`,
    pickedCalls: (n) => `${n} calls picked by hand`
  }
}

const TR: HeaderLabels = {
  callId: 'Çağrı kimliği',
  callDate: (zone) => `Çağrı tarihi (${zone})`,
  title: 'Başlık',
  summary: 'Özet',
  parameter: 'Parametre',
  parameterKey: 'Parametre anahtarı',
  value: 'Değer',
  aboutSheet: 'Dışa aktarım',
  dataSheet: 'Çağrılar',
  field: 'Alan',
  calls: 'Çağrı sayısı',
  rows: 'Satır sayısı',
  exportedAt: 'Dışa aktarım zamanı',
  timeZone: 'Saat dilimi',
  appVersion: 'Uygulama sürümü',
  columns: 'Sütunlar',
  analysisLayout: 'Analiz düzeni',
  query: 'Sorgu',
  scope: 'Kapsam',
  coverage: 'Eşitleme kapsamı',
  coverageText: {
    complete: 'Tam: eşitlenmiş kapsamlar sorgunun tamamını yanıtlıyor.',
    incomplete: (gaps) => `Eksik, eşitlenmemiş: ${gaps}. Dosyada serviste olan bazı çağrılar bulunmayabilir.`,
    callType: (types) => `çağrı türü ${types}`,
    direction: (direction) => `yön ${direction}`,
    results: (results) => `sonuçlar ${results === 'all' ? 'tümü' : results === 'answered' ? 'yanıtlananlar' : results}`,
    newRequest: (yes) => `yeni talep ${yes ? 'evet' : 'hayır'}`,
    withAnalysis: 'analiz dahil',
    nothingSynced: 'hiç eşitlenmedi'
  },
  reviewStatus: 'İnceleme durumu',
  statuses: { new: 'Yeni', in_review: 'İncelemede', reviewed: 'İncelendi', follow_up: 'Takip gerekli' },
  tags: 'Etiketler',
  note: 'Not',
  score: 'Puan',
  scorecard: 'Puan kartı',
  reviewer: 'İnceleyen',
  reviewedAt: 'İnceleme zamanı',
  version: 'Sürüm',
  total: 'Toplam',
  criticalFailed: 'Kritik kriter başarısız',
  yes: 'evet',
  no: 'hayır',
  trueWord: 'Evet',
  falseWord: 'Hayır',
  about: {
    columnNames: {
      callId: 'Çağrı kimliği',
      callDate: 'Çağrı tarihi',
      title: 'Başlık',
      summary: 'Özet',
      analysis: 'Analiz',
      review: 'İnceleme',
      extra: 'Diğer alanlar'
    },
    layouts: { wide: 'Geniş (her parametre bir sütun)', long: 'Uzun (her parametre bir satır)' },
    filters: {
      text: 'Metin',
      from: 'Başlangıç',
      to: 'Bitiş',
      callTypes: 'Çağrı türleri',
      direction: 'Yön',
      results: 'Sonuçlar',
      hasNewRequest: 'Yeni talep',
      analysis: 'Analiz',
      fields: 'Alanlar',
      sort: 'Sıralama',
      sortBy: 'Sıralama sütunu',
      review: 'İnceleme'
    },
    resultsWords: { answered: 'Yalnızca yanıtlananlar', all: 'Tüm sonuçlar' },
    allCalls: 'Tüm çağrılar',
    selectedRows: (n) => `Şu sorgunun seçili ${n} satırı:`,
    pickedCalls: (n) => `Elle seçilmiş ${n} çağrı`
  }
}

export function headerLabels(language: HeaderLanguage): HeaderLabels {
  return language === 'tr' ? TR : EN
}
