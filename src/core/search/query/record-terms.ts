import type { FieldFilter, SearchQuery } from '../../../shared/domain'
import type { KeyRef } from '../../../shared/query/resolve'
import { mayHoldRecordTerms, splitRecordTerms } from '../../../shared/query/record-terms'

/**
 * The query with its record-field terms (`agent:…`, `duration>=60`) moved from the text to
 * its field filters: equality folded as text is, ranges on the value's number. `fields` is
 * asked only when the text has a field operator (reading them samples the newest calls).
 */
export function withRecordTerms(query: SearchQuery, fields: () => readonly string[], keys: readonly KeyRef[]): SearchQuery {
  if (!mayHoldRecordTerms(query.text)) return query
  const split = splitRecordTerms(query.text, fields(), keys)
  if (split.terms.length === 0) return query
  const added: FieldFilter[] = split.terms.map((t) =>
    t.kind === 'equals'
      ? { kind: 'equals', field: t.field, value: t.value, folded: true }
      : { kind: 'range', field: t.field, min: t.min, max: t.max }
  )
  return { ...query, text: split.text, fields: [...(query.fields ?? []), ...added] }
}
