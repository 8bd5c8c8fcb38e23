/**
 * The get-calls request: zod checks the shape, then the spec's rules. Failures come back as
 * ABP validation errors (message + members), collected rather than stopping at the first.
 */
import { z } from 'zod'
import { RESULTS, type ScanFilter } from './call-store'
import type { Tenant } from './tenants'
import { parseLocal } from './zoned-time'

export const MAX_WINDOW = 10_000
export const MAX_TAKE = 500
export const MAX_TAKE_WITH_ANALYSIS = 100
export const DEFAULT_TAKE = 10
/** Sort columns accepted, all meaning the call's start time. */
export const SORT_COLUMNS = ['start_time_dt', 'StartTimeDt', 'callDate', 'call_date'] as const

export interface ValidationError {
  message: string
  members: string[]
}

export interface CallsQuery {
  from: number
  to: number
  skip: number
  take: number
  ascending: boolean
  includeAnalysis: boolean
  filter: ScanFilter
}

const nullableInt = z.number().int().nullable().optional()
const bodySchema = z.object({
  startTime: z.string().nullable().optional(),
  endTime: z.string().nullable().optional(),
  skip: nullableInt,
  take: nullableInt,
  sortColumn: z.string().nullable().optional(),
  isAscending: z.boolean().nullable().optional(),
  issueTypeNames: z.array(z.string()).nullable().optional(),
  hasNewRequest: z.boolean().nullable().optional(),
  direction: nullableInt,
  results: z.array(z.number().int()).nullable().optional(),
  includeAnalysis: z.boolean().nullable().optional()
})

export type ParseResult = { ok: true; query: CallsQuery } | { ok: false; errors: ValidationError[] }

export function parseCallsRequest(body: unknown, tenant: Tenant, zone: string): ParseResult {
  if (body === null || body === undefined || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, errors: [{ message: 'The input field is required.', members: ['input'] }] }
  }
  const shaped = bodySchema.safeParse(body)
  if (!shaped.success) {
    return {
      ok: false,
      errors: shaped.error.issues.map((i) => {
        const member = String(i.path[0] ?? 'input')
        return { message: `The value of ${member} is not valid.`, members: [member] }
      })
    }
  }
  const b = shaped.data
  const errors: ValidationError[] = []
  const bound = (name: 'startTime' | 'endTime', fallback: number): number => {
    const text = b[name]
    if (text === undefined || text === null) return fallback
    const t = parseLocal(text, zone)
    if (t === null) {
      errors.push({ message: `The value '${text}' is not valid for ${name}. Use YYYY-MM-DDTHH:MM:SS.`, members: [name] })
      return fallback
    }
    return t
  }
  const from = bound('startTime', -Infinity)
  const to = bound('endTime', Infinity)
  if (from > to) errors.push({ message: 'startTime must not be later than endTime.', members: ['startTime', 'endTime'] })

  const skip = b.skip ?? 0
  if (skip < 0) errors.push({ message: 'The field skip must be between 0 and 2147483647.', members: ['skip'] })
  const includeAnalysis = b.includeAnalysis ?? false
  const maxTake = includeAnalysis ? MAX_TAKE_WITH_ANALYSIS : MAX_TAKE
  let take = b.take ?? DEFAULT_TAKE
  if (take < 0 || take > maxTake) errors.push({ message: `The field take must be between 0 and ${maxTake}.`, members: ['take'] })

  const sortColumn = b.sortColumn ?? 'start_time_dt'
  if (sortColumn !== '' && !(SORT_COLUMNS as readonly string[]).includes(sortColumn)) {
    errors.push({ message: `Unknown sortColumn '${sortColumn}'. Allowed: ${SORT_COLUMNS.join(', ')}.`, members: ['sortColumn'] })
  }

  let types: Uint8Array | null = null
  if (b.issueTypeNames && b.issueTypeNames.length > 0) {
    types = new Uint8Array(256)
    for (const name of b.issueTypeNames) {
      const idx = tenant.typeIndex(name)
      if (idx === undefined) errors.push({ message: `Undefined issue type name: '${name}'.`, members: ['issueTypeNames'] })
      else types[idx] = 1
    }
  }

  let direction: number | null = null
  if (b.direction !== undefined && b.direction !== null) {
    if (b.direction < 1 || b.direction > 3) errors.push({ message: 'The field direction must be 1, 2 or 3.', members: ['direction'] })
    else direction = b.direction
  }

  let results: Uint8Array | null
  // Rule 4: absent means Answered only; null (or an empty list) means every result.
  if (!('results' in body)) results = lookup([RESULTS.Answered])
  else if (b.results === null || b.results === undefined || b.results.length === 0) results = null
  else {
    const bad = b.results.filter((r) => r < 1 || r > 5)
    if (bad.length > 0) errors.push({ message: `Unknown result value(s): ${bad.join(', ')}.`, members: ['results'] })
    results = lookup(b.results)
  }

  if (errors.length > 0) return { ok: false, errors }
  // Rule 1: the window skip+take never passes 10,000; the page shrinks instead of failing.
  take = Math.max(0, Math.min(take, MAX_WINDOW - skip))
  return {
    ok: true,
    query: {
      from,
      to,
      skip,
      take,
      ascending: b.isAscending ?? false,
      includeAnalysis,
      filter: { types, direction, results, hasNewRequest: b.hasNewRequest ?? null }
    }
  }
}

function lookup(values: number[]): Uint8Array {
  const t = new Uint8Array(256)
  for (const v of values) if (v >= 0 && v < 256) t[v] = 1
  return t
}
