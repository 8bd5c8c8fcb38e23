import type pg from 'pg'
import { z } from 'zod'
import { CallType, ScopeStatus } from '../../shared/domain'
import type { PulledBatch } from '../cache'
import { Intervals } from '../cache/sync-state/coverage'
import { CallsightError } from '../errors'
import { CALL_CAPS, oversizedCall, PULL_LIMITS } from './pull-limits'
import { batchSql, CALL_ID_BYTES, lastChangeSql, SCOPE_KEY_BYTES } from './pull-sql'
import { pulledCall, type PulledCall } from './pulled-rows'

/** A bigint column (node-postgres gives text) as a safe whole number. */
export const Int8 = z.union([z.string(), z.number()]).transform((v, ctx) => {
  const n = Number(v)
  if (!Number.isSafeInteger(n)) {
    ctx.addIssue({ code: 'custom', message: 'not a whole number' })
    return z.NEVER
  }
  return n
})

const Bytes = Int8
const ScopeRow = z.object({
  scope_key: z.string().nullable(),
  scope_key_bytes: Bytes,
  filters: z.string().nullable(),
  filters_bytes: Bytes,
  coverage: z.string().nullable(),
  coverage_bytes: Bytes,
  last_success_at: Int8.nullable(),
  whole: z.union([z.boolean(), z.literal('t'), z.literal('f')]).transform((v) => v === true || v === 't')
})
const MemberRow = z.object({ scope_key: z.string(), call_id: z.string(), refused: z.boolean() })
const TypeRow = z.object({ value: z.string().nullable(), value_bytes: Bytes, description: z.string().nullable(), description_bytes: Bytes })

/** The refusal of a call row with a value larger than the pull takes, else null. */
export function oversizedField(raw: unknown): CallsightError | null {
  const row = raw as Record<string, unknown>
  const id = typeof row['call_id'] === 'string' ? row['call_id'] : '?'
  const idBytes = Number(row['call_id_bytes'])
  if (idBytes > CALL_ID_BYTES) return oversizedCall(id, 'call id', idBytes, CALL_ID_BYTES)
  for (const [col, field] of CALL_CAPS) {
    const bytes = Number(row[`${col}_bytes`])
    if (bytes > PULL_LIMITS[field]) return oversizedCall(id, col, bytes, PULL_LIMITS[field])
  }
  return null
}

/** The change number a pull that ends now would reach (what `pull` prints as "at change …"). */
export async function lastChange(pool: pg.Pool, schema: string): Promise<number> {
  const r = await pool.query<{ s: string | null }>(`SELECT ${lastChangeSql(schema)} AS s`)
  return Int8.parse(r.rows[0]?.s ?? 0)
}

export type BatchRead =
  | (Omit<PulledBatch, 'cacheId' | 'source' | 'generation'> & {
      refused: CallsightError[]
      /** How many of `calls`, from the first, are numbered in the batch (the rest travel ahead). */
      numbered: number
    })
  | null

/**
 * Sends the batch's request at once (the client is idle: node-postgres writes it to the
 * socket before this returns) and parses the answer when it comes.
 */
export function readBatch(
  c: pg.ClientBase,
  schema: string,
  lo: number,
  size: number,
  since: number | null = null,
  scopes: readonly string[] | null = null
): Promise<BatchRead> {
  const sent = c.query(batchSql(schema, lo, size, since, scopes)) as unknown as Promise<pg.QueryResult[]>
  return sent.then((results) => {
    const [, top, calls, members, ahead, scopes, types] = results
    const hi = Number(z.string().parse(top!.rows[0]!.hi))
    if (!(hi > lo)) return null
    // A membership can be older than its call's last change: the call then travels with it,
    // in its current state (the later batch that numbers it applies it again, unchanged).
    // A call with a value larger than the pull takes is refused, with its memberships (the
    // members query flags them): the rest of the batch, and the cursor, go on exactly.
    const refused: CallsightError[] = []
    const take = (rows: unknown[]): PulledCall[] => {
      const out: PulledCall[] = []
      for (const raw of rows) {
        const over = oversizedField(raw)
        if (over) refused.push(over)
        else out.push(pulledCall(raw))
      }
      return out
    }
    const own = take(calls!.rows)
    const pulled = [...own, ...take(ahead!.rows)]
    return {
      cursor: hi,
      calls: pulled,
      numbered: own.length,
      refused,
      members: membersOf(members!.rows),
      scopes: scopes!.rows.map(scopeOf),
      callTypes: types!.rows.flatMap((raw) => callTypeOf(raw, refused))
    }
  })
}

/** The batch's memberships by scope, without those of refused calls. */
export function membersOf(rows: unknown[]): { scopeKey: string; callIds: string[] }[] {
  const byScope = new Map<string, string[]>()
  for (const raw of rows) {
    const m = MemberRow.parse(raw)
    if (m.refused) continue
    let list = byScope.get(m.scope_key)
    if (!list) byScope.set(m.scope_key, (list = []))
    list.push(m.call_id)
  }
  return [...byScope].map(([scopeKey, callIds]) => ({ scopeKey, callIds }))
}

/**
 * A scope of the batch. Scopes numbered in the batch come whole; those its memberships name
 * but numbered later (their coverage moved on since) by their filters only, coverage with
 * their batch. An oversized scope stops the pull.
 */
export function scopeOf(raw: unknown): PulledBatch['scopes'][number] {
  const r = ScopeRow.parse(raw)
  for (const [field, bytes, limit] of [
    ['scope_key', r.scope_key_bytes, SCOPE_KEY_BYTES],
    ['filters', r.filters_bytes, PULL_LIMITS.scopeJson],
    ['coverage', r.coverage_bytes, PULL_LIMITS.scopeJson]
  ] as const) {
    if (bytes > limit) {
      throw new CallsightError(
        'Storage',
        `The team cache sent a scope whose ${field} is ${bytes} bytes, more than the ${limit} a pull takes.`,
        {
          hint: 'Ask whoever administers the team cache to check its scopes; the pull stopped before that change.'
        }
      )
    }
  }
  return {
    scopeKey: z.string().parse(r.scope_key),
    filters: ScopeStatus.shape.filters.parse(JSON.parse(z.string().parse(r.filters))),
    coverage: r.whole ? Intervals.parse(JSON.parse(z.string().parse(r.coverage))) : [],
    lastSuccessAt: r.whole ? r.last_success_at : null
  }
}

/** A call type of the batch, or none when it is larger than a pull takes (then added to `refused`). */
function callTypeOf(raw: unknown, refused: CallsightError[]): CallType[] {
  const t = TypeRow.parse(raw)
  if (t.value_bytes > CALL_ID_BYTES || t.description_bytes > PULL_LIMITS.callTypeDescription) {
    const big = t.value_bytes > CALL_ID_BYTES
    refused.push(
      new CallsightError(
        'Storage',
        `The team cache's call type ${JSON.stringify((t.value ?? '').slice(0, 200))} was not pulled: its ${big ? 'value' : 'description'} is ${big ? t.value_bytes : t.description_bytes} bytes, more than a pull takes.`
      )
    )
    return []
  }
  return [CallType.parse(t)]
}
