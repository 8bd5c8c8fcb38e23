import type { CallRecord } from '../../shared/domain'
import { foldForIndex, foldedAnalysis } from '../cache/fold'
import { parseNumeric } from '../cache/numeric'

/**
 * What the team cache searches by, computed here in Node by the writer (and by the backfill
 * of schema 6) with the same Turkish folding as the local cache's full-text index, so that
 * PostgreSQL needs no ICU collation or dictionary to agree with a workstation:
 *
 * - `search`: a tsvector literal of the folded words, title weighted A, summary B and the
 *   analysis values C (joined by spaces, as the local index's analysis column holds them).
 *   One position is left empty between the columns, so a phrase never runs from the end of
 *   one column into the next, as it never does in FTS5.
 * - `facts`: each analysis key's folded values, and the numbers among them, for equals and
 *   range terms: `{"sentiment": ["olumsuz"], "score": ["55", 55]}`.
 */

/** Words as the local index splits folded text: runs of letters and digits of any script. */
const TOKEN = /[\p{L}\p{N}]+/gu
/** PostgreSQL's largest tsvector position: later words are dropped (a phrase past it is not found). */
const MAX_POSITION = 16383
/** Positions PostgreSQL keeps per lexeme. */
const MAX_POSITIONS_PER_WORD = 256
/** A lexeme's byte limit in a tsvector is 2 KiB: a longer "word" is left out. */
const MAX_WORD_BYTES = 2046

type Weight = 'A' | 'B' | 'C'

class VectorBuilder {
  private readonly words = new Map<string, string[]>()
  private pos = 0

  add(folded: string, weight: Weight): void {
    for (const m of folded.matchAll(TOKEN)) {
      this.pos++
      if (this.pos > MAX_POSITION) return
      const w = m[0]
      if (w.length * 3 > MAX_WORD_BYTES && Buffer.byteLength(w) > MAX_WORD_BYTES) continue
      let at = this.words.get(w)
      if (at === undefined) this.words.set(w, (at = []))
      if (at.length < MAX_POSITIONS_PER_WORD) at.push(`${this.pos}${weight}`)
    }
    // The gap that keeps a phrase inside one column.
    this.pos++
  }

  /** Words hold only letters and digits: no quote or backslash needs escaping. */
  literal(): string {
    let out = ''
    for (const [w, at] of this.words) out += `${out.length === 0 ? '' : ' '}'${w}':${at.join(',')}`
    return out
  }
}

/** The call's `search` tsvector literal; without analysis, of the title and summary only. */
export function searchVector(r: CallRecord, withAnalysis: boolean): string {
  const v = new VectorBuilder()
  v.add(foldForIndex(r.title), 'A')
  v.add(foldForIndex(r.summary), 'B')
  if (withAnalysis) v.add(foldedAnalysis(r), 'C')
  return v.literal()
}

/** The call's `facts`: each key's distinct folded values, then its distinct numbers. */
export function searchFacts(r: CallRecord): Record<string, Array<string | number>> {
  const out: Record<string, Array<string | number>> = Object.create(null) as Record<string, Array<string | number>>
  for (const a of r.analysis) {
    const list = (out[a.key] ??= [])
    const folded = foldForIndex(a.value)
    if (!list.includes(folded)) list.push(folded)
    const n = parseNumeric(a.value)
    if (n !== null && !list.includes(n)) list.push(n)
  }
  return out
}
