import type { KeyRef } from '../../../../src/shared/query'

/** The fixture's analysis keys as the catalog reads them. */
export const FIXTURE_KEYS: KeyRef[] = [
  { key: 'sentiment', friendlyName: 'Duygu', numeric: false },
  { key: 'score', friendlyName: 'Skor', numeric: true },
  { key: 'agent', friendlyName: 'Temsilci', numeric: false }
]

/**
 * The one table of query-language cases: each is run through local search (the SQL) and
 * through the in-memory evaluation of the same syntax tree over the same cache (brute force),
 * in the unit tests and through the CLI. The fixture's keys: sentiment (Duygu), score (Skor,
 * numeric), agent (Temsilci).
 */
export const LANGUAGE_CASES: ReadonlyArray<[label: string, text: string]> = [
  ['a word is a prefix', 'fatur'],
  ['one-letter prefix (prefix index)', 'o'],
  ['two-letter prefix (prefix index)', 'ka'],
  ['a word pair ending in a one-letter prefix', 'kargo-g'],
  ['short prefixes ORed and negated', '(ı OR ö) -ka'],
  ['two words: AND', 'fatura iade'],
  ['explicit AND', 'fatura AND iade'],
  ['a quoted phrase is exact', '"kargo gecikti"'],
  ['OR', 'fatura OR iade'],
  ['OR of three, Turkish folding', 'İPTAL OR ışık OR sikayet'],
  ['minus excludes', 'fatura -iade'],
  ['NOT excludes', 'fatura NOT iade'],
  ['a lone negation', '-iade'],
  ['two negations alone', '-fatura -kargo'],
  ['parentheses', '(fatura OR kargo) -iade'],
  ['nested groups', 'müşteri (iade OR (kargo gecikti))'],
  ['negated group', 'kargo -(iade OR fatura)'],
  ['OR with a negation', 'iade OR -kargo'],
  ['title field', 'title:fatura'],
  ['summary field, phrase', 'summary:"kargo gecikti"'],
  ['Turkish field name', 'başlık:iade'],
  ['field and word', 'title:kargo fatura'],
  ['negated field', 'fatura -title:fatura'],
  ['analysis by friendly name', 'duygu:olumsuz'],
  ['values fold case', 'Duygu:OLUMSUZ'],
  ['values fold diacritics', 'sentiment:notr'],
  ['multi-word value', 'temsilci:"temsilci 3"'],
  ['at least', 'skor>=90'],
  ['greater than', 'skor>90'],
  ['less than', 'score<5'],
  ['at most', 'score<=5'],
  ['range', 'skor:20..35'],
  ['open range above', 'score:95..'],
  ['open range below', 'score:..3'],
  ['numeric equals', 'skor:50'],
  ['analysis OR analysis', 'duygu:olumsuz OR skor>=95'],
  ['negated analysis', '-duygu:olumlu'],
  ['text AND negated range', 'fatura -(skor<50)'],
  ['text with a mixed group', 'kargo (duygu:olumsuz OR title:iade)'],
  ['analysis value as a word', 'olumsuz'],
  ['everything together', '(fatura OR iade) -kargo duygu:nötr skor:10..80']
]
