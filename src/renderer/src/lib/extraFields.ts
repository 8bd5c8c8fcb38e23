/**
 * "Other fields" of a call, readable: the fields the service sends beyond the contract's
 * (agentName, durationSeconds, language…) get a friendly name from the message files and a
 * value in the reader's terms (a duration as m:ss, a language by its name). Unknown keys stay
 * as they are, raw key and JSON value, so nothing the service sent is hidden.
 */

/** Known keys, matched case-insensitively, to their message key under `fields.`. */
const KNOWN: Record<string, { label: string; kind: 'duration' | 'language' | 'text' }> = {
  durationseconds: { label: 'durationSeconds', kind: 'duration' },
  duration: { label: 'durationSeconds', kind: 'duration' },
  agentname: { label: 'agentName', kind: 'text' },
  agent: { label: 'agentName', kind: 'text' },
  teamname: { label: 'teamName', kind: 'text' },
  team: { label: 'teamName', kind: 'text' },
  language: { label: 'language', kind: 'language' },
  direction: { label: 'direction', kind: 'text' },
  calltype: { label: 'callType', kind: 'text' },
  type: { label: 'callType', kind: 'text' }
}

/** A known field's message key (`fields.*`) and how its value reads; null for a field the app has no name for. */
export function knownField(key: string): { labelKey: string; kind: 'duration' | 'language' | 'text' } | null {
  const known = KNOWN[key.toLowerCase()]
  return known ? { labelKey: `fields.${known.label}`, kind: known.kind } : null
}

export interface ExtraEntry {
  /** The raw key, always shown on hover so the field can be found in exports. */
  key: string
  /** A message key (fields.*) when the field is known. */
  labelKey: string | null
  value: string
  /** Known fields read as prose; unknown ones keep the monospace of raw data. */
  raw: boolean
}

/** 75 → "1:15", 3725 → "1:02:05": the clock-style duration analysts read at a glance. */
export function formatClockDuration(totalSeconds: number): string {
  const s = Math.max(0, Math.round(totalSeconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  const sec = String(s % 60).padStart(2, '0')
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`
}

/** A BCP 47 tag as the language's name in the UI language ("tr-TR" → "Türkçe (Türkiye)"). */
export function languageName(tag: string, uiLocale: string): string {
  try {
    return new Intl.DisplayNames([uiLocale], { type: 'language' }).of(tag) ?? tag
  } catch {
    return tag
  }
}

export function extraEntries(extra: Record<string, unknown>, uiLocale: string, words?: { yes: string; no: string }): ExtraEntry[] {
  return Object.entries(extra).map(([key, v]) => {
    if (typeof v === 'boolean' && words)
      return { key, labelKey: knownField(key)?.labelKey ?? null, value: v ? words.yes : words.no, raw: false }
    const known = KNOWN[key.toLowerCase()]
    const rawValue = typeof v === 'string' ? v : JSON.stringify(v)
    if (!known) return { key, labelKey: null, value: rawValue, raw: true }
    const labelKey = `fields.${known.label}`
    if (known.kind === 'duration' && typeof v === 'number' && Number.isFinite(v))
      return { key, labelKey, value: formatClockDuration(v), raw: false }
    if (known.kind === 'language' && typeof v === 'string') return { key, labelKey, value: languageName(v, uiLocale), raw: false }
    if (typeof v === 'string' || typeof v === 'number')
      return { key, labelKey, value: typeof v === 'number' ? new Intl.NumberFormat(uiLocale).format(v) : v, raw: false }
    return { key, labelKey, value: rawValue, raw: true }
  })
}
