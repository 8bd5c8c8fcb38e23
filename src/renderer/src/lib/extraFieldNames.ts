import type { ExtraFieldSetting } from '../../../shared/domain'
import { knownField } from './extraFields'

/**
 * The names and choices of the record's extra fields (agentName, durationSeconds…): the
 * user's name in a language when they gave one, else the app's own name for a known field,
 * else the raw key. Insight offers a field and an export writes it unless the user said no.
 */
export type ExtraFieldSettings = Record<string, ExtraFieldSetting>

/** `say(labelKey, lang)`: a message in the given language (vue-i18n's t with a locale). */
export type Say = (labelKey: string, lang: 'tr' | 'en') => string

export function extraFieldName(key: string, lang: 'tr' | 'en', settings: ExtraFieldSettings | undefined, say: Say): string {
  const s = settings?.[key]
  const own = (lang === 'tr' ? s?.nameTr : s?.nameEn)?.trim()
  if (own) return own
  const known = knownField(key)
  return known ? say(known.labelKey, lang) : key
}

/** The user's own name for the field in the language, or null (columnLabel then names it). */
export function ownName(key: string, lang: 'tr' | 'en', settings: ExtraFieldSettings | undefined): string | null {
  const s = settings?.[key]
  return (lang === 'tr' ? s?.nameTr : s?.nameEn)?.trim() || null
}

export const offeredInInsight = (key: string, settings: ExtraFieldSettings | undefined): boolean => settings?.[key]?.facet ?? true
export const exportedByDefault = (key: string, settings: ExtraFieldSettings | undefined): boolean => settings?.[key]?.export ?? true

/** The keys of the extra fields among the columns the cache offers (`extra:<key>`), in its order. */
export function extraKeys(columns: ReadonlyArray<{ column: string }>): string[] {
  return columns.filter((c) => c.column.startsWith('extra:')).map((c) => c.column.slice(6))
}

/**
 * The export's extra columns: the fields chosen, each headed by its name in the export's
 * language. A duration is written in seconds (a number a spreadsheet can sum), so its
 * default header says seconds, not the m:ss the screen shows.
 */
export function exportExtraFields(
  keys: readonly string[],
  chosen: ReadonlySet<string>,
  lang: 'tr' | 'en',
  settings: ExtraFieldSettings | undefined,
  say: Say
): Array<{ key: string; header: string }> {
  return keys
    .filter((k) => chosen.has(k))
    .map((key) => ({
      key,
      header:
        ownName(key, lang, settings) ??
        (knownField(key)?.kind === 'duration' ? say('fields.durationSecondsExport', lang) : extraFieldName(key, lang, settings, say))
    }))
}
