export type Language = 'tr' | 'en'

/** 'system' follows the OS locale: Turkish for any tr-* locale, English otherwise. */
export function resolveLanguage(setting: 'system' | Language, osLocale: string): Language {
  if (setting !== 'system') return setting
  return osLocale.toLowerCase().startsWith('tr') ? 'tr' : 'en'
}

/** 'system' follows the OS; an explicit choice overrides it. */
export function resolveDark(setting: 'system' | 'light' | 'dark', osDark: boolean): boolean {
  return setting === 'system' ? osDark : setting === 'dark'
}
