import { parse as parseCsv } from 'csv-parse/sync'
import { z } from 'zod'
import type { CallType } from '../../../shared/domain'
import { CallsightError } from '../../errors'

/** One entry as a tenant's catalog writes it ({Value, Description}); camelCase is accepted too. */
const Entry = z
  .object({
    Value: z.string().trim().min(1).max(200).optional(),
    value: z.string().trim().min(1).max(200).optional(),
    Description: z.string().trim().max(200).nullable().optional(),
    description: z.string().trim().max(200).nullable().optional()
  })
  .transform((e, ctx) => {
    const value = e.Value ?? e.value
    if (value === undefined) {
      ctx.addIssue({ code: 'custom', message: 'an entry has no Value' })
      return z.NEVER
    }
    return { value, description: e.Description ?? e.description ?? '' }
  })

/** A bare array, or an envelope as ABP lists write it ({items}, {result:{items}}). */
const JsonCatalog = z.union([
  z.array(Entry),
  z.object({ items: z.array(Entry) }).transform((o) => o.items),
  z.object({ result: z.object({ items: z.array(Entry) }) }).transform((o) => o.result.items)
])

const MAX_ENTRIES = 1000

/**
 * A call type catalog file: JSON (an array of {Value, Description}) or CSV with a header row
 * naming Value and Description (any case; comma or semicolon separated, as Excel in a Turkish
 * locale saves it). The spec shows no catalog endpoint, so this is how a tenant's catalog
 * gets in besides the names syncs learn.
 */
export function parseCallTypeFile(text: string, name: string): CallType[] {
  const body = text.replace(/^\uFEFF/, '')
  const entries = /^\s*[[{]/.test(body) ? fromJson(body, name) : fromCsv(body, name)
  if (entries.length === 0) throw new CallsightError('InvalidInput', `${name}: no call types in the file.`)
  if (entries.length > MAX_ENTRIES) throw new CallsightError('InvalidInput', `${name}: more than ${MAX_ENTRIES} call types.`)
  const seen = new Set<string>()
  return entries.filter((e) => !seen.has(e.value) && seen.add(e.value))
}

function fromJson(body: string, name: string): CallType[] {
  let raw: unknown
  try {
    raw = JSON.parse(body)
  } catch {
    throw new CallsightError('InvalidInput', `${name}: not valid JSON.`)
  }
  const r = JsonCatalog.safeParse(raw)
  if (!r.success)
    throw new CallsightError(
      'InvalidInput',
      `${name}: expected a list of {Value, Description} (${r.error.issues[0]?.message ?? 'not valid'}).`
    )
  return r.data
}

function fromCsv(body: string, name: string): CallType[] {
  const firstLine = body.split(/\r?\n/, 1)[0] ?? ''
  const delimiter = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ','
  let rows: string[][]
  try {
    rows = parseCsv(body, { delimiter, skip_empty_lines: true, trim: true, relax_column_count: true }) as string[][]
  } catch {
    throw new CallsightError('InvalidInput', `${name}: not valid CSV.`)
  }
  const header = (rows[0] ?? []).map((h) => h.toLowerCase())
  const vi = header.indexOf('value')
  const di = header.indexOf('description')
  if (vi < 0) throw new CallsightError('InvalidInput', `${name}: the CSV needs a header row with Value (and Description).`)
  return rows.slice(1).map((r, i) => {
    const e = Entry.safeParse({ Value: r[vi] ?? '', Description: di >= 0 ? (r[di] ?? '') : '' })
    if (!e.success) throw new CallsightError('InvalidInput', `${name}: row ${i + 2} has no Value.`)
    return e.data
  })
}
