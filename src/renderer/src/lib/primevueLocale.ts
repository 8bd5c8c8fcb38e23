/**
 * PrimeVue's own words (the date picker's month and day names, "Today", "Clear", the empty
 * filter message…) in the UI language. Names come from Intl, so they are the platform's
 * spelling ("Kasım", "Pzt"); the few phrases come from the app's message files. The first
 * day of the week is the locale's (Monday for Turkish).
 */
export interface PickerWords {
  today: string
  clear: string
  apply: string
  cancel: string
  weekHeader: string
  noResults: string
  noOptions: string
  chooseYear: string
  chooseMonth: string
  chooseDate: string
  prevMonth: string
  nextMonth: string
  prevYear: string
  nextYear: string
  prevDecade: string
  nextDecade: string
  close: string
  previous: string
  next: string
  /** "{0} selected", PrimeVue's placeholder kept. */
  selected: string
}

/** 2023-01-01 was a Sunday: PrimeVue's day arrays start on Sunday whatever the first day is. */
const SUNDAY = Date.UTC(2023, 0, 1, 12)
const DAY = 86_400_000

function names(locale: string, count: number, at: (i: number) => number, options: Intl.DateTimeFormatOptions): string[] {
  const fmt = new Intl.DateTimeFormat(locale, { ...options, timeZone: 'UTC' })
  return Array.from({ length: count }, (_, i) => fmt.format(new Date(at(i))))
}

/** The locale's first day of the week, 0 = Sunday (Intl says 7 for Sunday). */
export function firstDayOfWeek(locale: string): number {
  const loc = new Intl.Locale(locale) as Intl.Locale & { getWeekInfo?: () => { firstDay: number }; weekInfo?: { firstDay: number } }
  const info = loc.getWeekInfo?.() ?? loc.weekInfo
  if (info) return info.firstDay % 7
  // Engines without week info: Monday, as in both of the app's locales (tr-TR, en-GB).
  return 1
}

/** The words from the message files: picker.* and a few common.* ones. */
export function pickerWords(t: (key: string, params?: Record<string, string>) => string): PickerWords {
  const w = (key: string): string => t(`picker.${key}`)
  return {
    today: w('today'),
    clear: w('clear'),
    apply: t('common.apply'),
    cancel: t('common.cancel'),
    weekHeader: w('weekHeader'),
    noResults: w('noResults'),
    noOptions: w('noOptions'),
    chooseYear: w('chooseYear'),
    chooseMonth: w('chooseMonth'),
    chooseDate: w('chooseDate'),
    prevMonth: w('prevMonth'),
    nextMonth: w('nextMonth'),
    prevYear: w('prevYear'),
    nextYear: w('nextYear'),
    prevDecade: w('prevDecade'),
    nextDecade: w('nextDecade'),
    close: t('common.close'),
    previous: w('previous'),
    next: w('next'),
    selected: t('picker.selected', { count: '{0}' })
  }
}

/** PrimeVue's locale options for these words, names from Intl. */
export function primeLocale(locale: string, words: PickerWords) {
  const day = (i: number): number => SUNDAY + i * DAY
  const month = (i: number): number => Date.UTC(2023, i, 15, 12)
  // The calendar's column heads use the short names: cut to two letters, Turkish's
  // Pazar and Pazartesi would both read "Pa".
  const short = names(locale, 7, day, { weekday: 'short' }).map((n) => n.replace(/\.$/, ''))
  return {
    dayNames: names(locale, 7, day, { weekday: 'long' }),
    dayNamesShort: short,
    dayNamesMin: short,
    monthNames: names(locale, 12, month, { month: 'long' }),
    monthNamesShort: names(locale, 12, month, { month: 'short' }),
    firstDayOfWeek: firstDayOfWeek(locale),
    today: words.today,
    clear: words.clear,
    apply: words.apply,
    cancel: words.cancel,
    weekHeader: words.weekHeader,
    emptyFilterMessage: words.noResults,
    emptySearchMessage: words.noResults,
    emptyMessage: words.noOptions,
    chooseYear: words.chooseYear,
    chooseMonth: words.chooseMonth,
    chooseDate: words.chooseDate,
    prevMonth: words.prevMonth,
    nextMonth: words.nextMonth,
    prevYear: words.prevYear,
    nextYear: words.nextYear,
    prevDecade: words.prevDecade,
    nextDecade: words.nextDecade,
    selectionMessage: words.selected,
    aria: { close: words.close, previous: words.previous, next: words.next }
  }
}
