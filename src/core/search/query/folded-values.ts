import type { ValueSuggestions } from '../../../shared/domain'
import { foldText } from '../../../shared/text/fold'
import { byCountThenValue } from '../facets/buckets'

/**
 * Values that equals cannot tell apart (case, accents: "Negative", "negative") as one, shown
 * as their most frequent spelling with the counts added, most first.
 */
export function mergeFolded(values: ReadonlyArray<{ value: string; count: number }>): ValueSuggestions['values'] {
  const byFolded = new Map<string, { value: string; count: number; top: number }>()
  for (const { value, count } of values) {
    const k = foldText(value)
    const seen = byFolded.get(k)
    if (seen === undefined) byFolded.set(k, { value, count, top: count })
    else {
      seen.count += count
      if (count > seen.top) Object.assign(seen, { value, top: count })
    }
  }
  return [...byFolded.values()].map(({ value, count }) => ({ value, count })).sort(byCountThenValue)
}
