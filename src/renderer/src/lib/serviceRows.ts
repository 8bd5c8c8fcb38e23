/**
 * What the service mode shows differently from the local list: its rows are one page of the
 * service's window, and the service filters by dates, types, direction and result code only
 * (the spec has no free-text search), so nothing in a row was matched by the typed text.
 */
export type ListMode = 'local' | 'service' | 'team'

/** The number a row shows: its place in the whole result, so page 2 of the service starts at 101. */
export function rowNumber(mode: ListMode, serviceSkip: number, offset: number): number {
  return mode === 'service' ? serviceSkip + offset + 1 : offset + 1
}

/** The terms to mark in titles and summaries: none in service mode, where the text was not asked. */
export function termsToHighlight(mode: ListMode, terms: string[]): string[] {
  return mode === 'service' ? [] : terms
}
