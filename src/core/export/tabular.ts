import type { AnalysisLayout, CallRecord, ExportColumn, ExtraFieldColumn } from '../../shared/domain'
import { DateCell, parseRealNumber, type Cell } from './cells'
import type { HeaderLabels } from './header-labels'
import { reviewPart, type ReviewLookup } from './review-columns'
import type { TextGuard } from './text-guard'

export type ColumnKind = 'id' | 'date' | 'text' | 'longText' | 'value'

export interface TabularColumn {
  header: string
  kind: ColumnKind
}

/** The rows of one call. Long layout: one per analysis item, or one blank-item row when there are none. */
export interface TabularPlan {
  columns: TabularColumn[]
  rowsOf(record: CallRecord): Cell[][]
}

/** When one call carries the same key twice, the wide cell lists every value. */
const REPEATED_KEY_SEPARATOR = '; '

export interface TabularInput {
  columns: readonly ExportColumn[]
  /** The record's extra fields, written where `extra` is among the columns. */
  extraFields?: readonly ExtraFieldColumn[]
  layout: AnalysisLayout
  analysisKeys: ReadonlyArray<{ key: string; friendlyName: string }>
  zone: string
  text: TextGuard
  labels: HeaderLabels
  /** The annotations, for the `review` column. */
  review?: ReviewLookup
}

/**
 * Turns the chosen columns into a header and a per-call row builder, shared by CSV and
 * XLSX so that both formats say exactly the same thing.
 */
export function planTabular(input: TabularInput): TabularPlan {
  const { text, labels } = input
  const value = valueCell(text, labels)
  const chosen = [...new Set(input.columns)]
  const columns: TabularColumn[] = []
  // Each part appends its cells for (record, item) to a row; item is the long layout's one item.
  type Part = (row: Cell[], record: CallRecord, item: CallRecord['analysis'][number] | null) => void
  const parts: Part[] = []
  let long = false

  for (const column of chosen) {
    switch (column) {
      case 'callId':
        columns.push({ header: labels.callId, kind: 'id' })
        // The service's identifier is not personal data, and masking it would cut the
        // export off from the calls it describes; it is only neutralized.
        parts.push((row, r) => row.push(text.neutralizeOnly(r.callId)))
        break
      case 'callDate':
        columns.push({ header: labels.callDate(input.zone), kind: 'date' })
        parts.push((row, r) => row.push(new DateCell(r.callAt)))
        break
      case 'title':
        columns.push({ header: labels.title, kind: 'text' })
        parts.push((row, r) => row.push(text.text(r.title)))
        break
      case 'summary':
        columns.push({ header: labels.summary, kind: 'longText' })
        parts.push((row, r) => row.push(text.text(r.summary)))
        break
      case 'analysis':
        if (input.layout === 'long') {
          long = true
          columns.push(
            { header: labels.parameter, kind: 'text' },
            { header: labels.parameterKey, kind: 'text' },
            { header: labels.value, kind: 'value' }
          )
          parts.push((row, _r, item) => {
            if (item === null) row.push('', '', '')
            else row.push(text.text(item.friendlyName), text.text(item.key), value(item.value))
          })
        } else {
          parts.push(widePart(input, columns))
        }
        break
      case 'extra':
        parts.push(extraPart(input, columns))
        break
      case 'review':
        // Without annotations to read (an export from elsewhere), the column is left out.
        if (input.review) parts.push(reviewPart(input.review, text, columns, labels))
        break
    }
  }

  return {
    columns,
    rowsOf(record) {
      const items = long && record.analysis.length > 0 ? record.analysis : [null]
      return items.map((item) => {
        const row: Cell[] = []
        for (const part of parts) part(row, record, item)
        return row
      })
    }
  }
}

function widePart(input: TabularInput, columns: TabularColumn[]): (row: Cell[], record: CallRecord) => void {
  const { text } = input
  const value = valueCell(text, input.labels)
  const keys = dedupeKeys(input.analysisKeys)
  const indexOf = new Map(keys.map((k, i) => [k.key, i]))
  // Two keys may share a friendly name; the key tells their columns apart.
  const nameCount = new Map<string, number>()
  for (const k of keys) nameCount.set(k.friendlyName, (nameCount.get(k.friendlyName) ?? 0) + 1)
  for (const k of keys) {
    const name = k.friendlyName.trim() === '' ? k.key : k.friendlyName
    const header = (nameCount.get(k.friendlyName) ?? 0) > 1 ? `${name} (${k.key})` : name
    columns.push({ header: text.text(header), kind: 'value' })
  }

  return (row, record) => {
    const cells: Array<string | null> = new Array<string | null>(keys.length).fill(null)
    for (const item of record.analysis) {
      const i = indexOf.get(item.key)
      // A key the source did not announce has no column; the source contract lists them all.
      if (i === undefined) continue
      const before = cells[i]
      cells[i] = before === null || before === undefined ? item.value : before + REPEATED_KEY_SEPARATOR + item.value
    }
    for (const raw of cells) row.push(raw === null ? '' : value(raw))
  }
}

/**
 * The chosen extra fields, one column each under the user's name for it. Values keep their
 * type: a number (a duration in seconds) is a number cell, true/false the language's word,
 * a numeral text a number as analysis values are, other text guarded text.
 */
function extraPart(input: TabularInput, columns: TabularColumn[]): (row: Cell[], record: CallRecord) => void {
  const { text, labels } = input
  const seen = new Set<string>()
  const fields = (input.extraFields ?? []).filter((f) => !seen.has(f.key) && seen.add(f.key))
  for (const f of fields) columns.push({ header: text.text(f.header), kind: 'value' })
  const cell = (v: unknown): Cell => {
    if (v === null || v === undefined) return ''
    if (typeof v === 'boolean') return v ? labels.trueWord : labels.falseWord
    if (typeof v === 'number') return (Number.isFinite(v) ? parseRealNumber(String(v)) : null) ?? text.text(String(v))
    if (typeof v === 'string') return text.value(v)
    return text.text(JSON.stringify(v))
  }
  return (row, record) => {
    for (const f of fields) row.push(cell(record.extra[f.key]))
  }
}

/** Values repeat (a key has a few hundred distinct ones at most); long ones rarely do. */
const VALUE_MEMO_MAX_CHARS = 256
const VALUE_MEMO_MAX_ENTRIES = 20_000

/**
 * An analysis value's cell: a real number stays a number, a true or false is the language's
 * word for it (a spreadsheet shows "Evet", not "true"), anything else is guarded text. The
 * cell is a pure function of the value (the guard is pure, cells are immutable), so each
 * distinct value is worked out once per export: a million values are a few thousand texts.
 */
function valueCell(text: TextGuard, labels: HeaderLabels): (raw: string) => Cell {
  const memo = new Map<string, Cell>()
  const cellOf = (raw: string): Cell => {
    const word = raw.trim().toLowerCase()
    if (word === 'true') return labels.trueWord
    if (word === 'false') return labels.falseWord
    return text.value(raw)
  }
  return (raw) => {
    if (raw.length > VALUE_MEMO_MAX_CHARS) return cellOf(raw)
    let cell = memo.get(raw)
    if (cell === undefined) {
      cell = cellOf(raw)
      if (memo.size >= VALUE_MEMO_MAX_ENTRIES) memo.clear()
      memo.set(raw, cell)
    }
    return cell
  }
}

function dedupeKeys(keys: TabularInput['analysisKeys']): Array<{ key: string; friendlyName: string }> {
  const seen = new Set<string>()
  const out: Array<{ key: string; friendlyName: string }> = []
  for (const k of keys) {
    if (seen.has(k.key)) continue
    seen.add(k.key)
    out.push({ key: k.key, friendlyName: k.friendlyName })
  }
  return out
}
