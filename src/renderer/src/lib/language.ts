export type Language = 'tr' | 'en'

/** 'system' follows the OS locale: Turkish for any tr-* locale, English otherwise. */
export function resolveLanguage(setting: 'system' | Language, osLocale: string): Language {
  if (setting !== 'system') return setting
  return osLocale.toLowerCase().startsWith('tr') ? 'tr' : 'en'
}

/**
 * The locale 'system' follows. The desktop app asks the OS; in browser mode the server's
 * locale is the machine serve runs on, not the reader's, so the browser's own language
 * (its first preference) decides.
 */
export function systemLocale(info: { electron: string | null; locale: string } | null, browserLanguages: readonly string[]): string {
  if (info !== null && info.electron === null && browserLanguages.length > 0) return browserLanguages[0]!
  return info?.locale ?? 'en'
}

/** 'system' follows the OS; an explicit choice overrides it. */
export function resolveDark(setting: 'system' | 'light' | 'dark', osDark: boolean): boolean {
  return setting === 'system' ? osDark : setting === 'dark'
}
