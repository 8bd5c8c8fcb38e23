import { createI18n } from 'vue-i18n'
import { en } from './en'
import { tr } from './tr'

export const i18n = createI18n({
  legacy: false,
  locale: 'en',
  fallbackLocale: 'en',
  messages: { en, tr },
  // Turkish nouns stay singular after a number ("1 sonuç", "5 sonuç"): one form, always the first.
  pluralRules: { tr: () => 0 },
  missingWarn: false,
  fallbackWarn: false
})
