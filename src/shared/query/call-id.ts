/**
 * A call looked up by its ID: an analyst pastes one from a ticket. The whole text is the ID
 * (the service's callIds are UUIDs) or `id:` and the ID; anywhere else in a query a UUID is
 * only words, which the index does not hold.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const ID_FIELD = /^id\s*[:=]\s*"?([^\s"]+)"?$/i

/** The call ID the whole text names, or null when the text is a search. */
export function callIdOf(text: string): string | null {
  const s = text.trim()
  if (UUID.test(s)) return s
  const m = ID_FIELD.exec(s)
  return m ? m[1]! : null
}

/** The spellings a call ID is looked up under: as typed, and a UUID in either case. */
export function callIdSpellings(id: string): string[] {
  return [...new Set([id, id.toLowerCase(), id.toUpperCase()])]
}
