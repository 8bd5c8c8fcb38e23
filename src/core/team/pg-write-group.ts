import type pg from 'pg'
import type { CallRecord } from '../../shared/domain'
import type { WritePageInput } from '../cache'
import { q } from './connection'
import { UPSERT_CHUNK, upsertChunk } from './pg-upsert'

export interface PgPageCounts {
  inserted: number
  updated: number
  unchanged: number
}

/**
 * The statements of one write transaction, in order. On a connection in node-postgres's
 * pipeline mode (`pipeline: true`, how PgSyncStore opens its pool) each statement goes out on
 * the wire as soon as it is made, so PostgreSQL works through them back to back while this
 * process prepares the next; their answers are read at the end. Otherwise each is awaited
 * before the next is sent (node-postgres deprecates queueing a query on a busy client).
 * Either way they run in the order sent, and a failure fails the transaction: every promise
 * is settled before COMMIT.
 */
export class TxStatements {
  private readonly all: Array<Promise<unknown>> = []
  constructor(readonly c: pg.ClientBase) {}

  private get pipelined(): boolean {
    return (this.c as pg.ClientBase & { pipeline?: boolean }).pipeline === true
  }

  /** Sends a statement; `then` (e.g. counting its rows) runs on its answer. */
  async send<R extends pg.QueryResultRow>(p: Promise<pg.QueryResult<R>>, then?: (res: pg.QueryResult<R>) => void): Promise<void> {
    const done = then ? p.then(then) : p
    if (!this.pipelined) {
      await done
      return
    }
    // Marked handled at once: one that fails while this process waits for another must not
    // count as an unhandled rejection (which ends a Node process); it is read in settle().
    done.catch(() => undefined)
    this.all.push(done)
  }

  /** Waits for every statement sent; throws the first failure. */
  async settle(): Promise<void> {
    const settled = await Promise.allSettled(this.all)
    const failed = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected')
    if (failed) throw failed.reason
  }
}

/** A call as this transaction wrote it: the record, and the record whose analysis it holds (null: none written). */
interface WrittenCall {
  r: CallRecord
  analysis: CallRecord | null
}

function sameItems(a: CallRecord['analysis'], b: CallRecord['analysis']): boolean {
  if (a === b) return true
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.key !== y.key || x.friendlyName !== y.friendlyName || x.value !== y.value) return false
  }
  return true
}

/** Whether upserting `r` would leave the call this transaction wrote as it is. */
function sameAsWritten(w: WrittenCall, r: CallRecord, withAnalysis: boolean): boolean {
  const a = w.r
  if (a !== r) {
    if (a.callAt !== r.callAt || a.callDate !== r.callDate || a.title !== r.title || a.summary !== r.summary) return false
    if (a.extra !== r.extra && JSON.stringify(a.extra) !== JSON.stringify(r.extra)) return false
  }
  if (!withAnalysis) return true
  return w.analysis !== null && sameItems(w.analysis.analysis, r.analysis)
}

/** Sets a scope's checkpoint (none: deleted). */
export function checkpointStatement(c: pg.ClientBase, schema: string, scopeKey: string, checkpoint: unknown): Promise<pg.QueryResult> {
  if (checkpoint === null || checkpoint === undefined) {
    return c.query(`DELETE FROM ${q(schema)}.checkpoints WHERE scope_key = $1`, [scopeKey])
  }
  return c.query(
    `INSERT INTO ${q(schema)}.checkpoints (scope_key, checkpoint) VALUES ($1, $2) ON CONFLICT (scope_key) DO UPDATE SET checkpoint = excluded.checkpoint`,
    [scopeKey, JSON.stringify(checkpoint)]
  )
}

export interface GroupWrite {
  c: pg.ClientBase
  schema: string
  /** The scope's row id (cached by the store). */
  scopeId: (c: pg.ClientBase, scopeKey: string) => Promise<number>
  now: number
  /** The team cache search is on: the upserts fill its columns (pg-migration-8.ts). */
  search: boolean
}

/**
 * A group of pages inside the caller's write transaction. Calls are upserted with one
 * statement per run of pages with the same analysis flag (the last copy of a callId wins, as
 * it would page by page); a known call is rewritten, and given a new change number, only
 * when a field differs — the comparison happens in PostgreSQL, in the same statement.
 */
export async function writeGroup(w: GroupWrite, inputs: readonly WritePageInput[]): Promise<PgPageCounts[]> {
  const out: PgPageCounts[] = inputs.map(() => ({ inserted: 0, updated: 0, unchanged: 0 }))
  const tx = new TxStatements(w.c)
  const written = new Map<string, WrittenCall>()
  try {
    let i = 0
    while (i < inputs.length) {
      let j = i + 1
      while (j < inputs.length && inputs[j]!.includeAnalysis === inputs[i]!.includeAnalysis) j++
      await upsertCalls(w, tx, inputs.slice(i, j), out.slice(i, j), written)
      i = j
    }
    const members = new Map<string, Set<string>>()
    const checkpoints = new Map<string, unknown>()
    const runs = new Map<string, { stored: number; requests: number }>()
    for (const input of inputs) {
      let set = members.get(input.scopeKey)
      if (!set) members.set(input.scopeKey, (set = new Set()))
      for (const r of input.records) set.add(r.callId)
      checkpoints.set(input.scopeKey, input.checkpoint)
      if (input.runId !== undefined && input.runCounts) runs.set(input.runId, input.runCounts)
    }
    const s = q(w.schema)
    for (const [key, ids] of members) {
      if (ids.size === 0) continue
      const scope = await w.scopeId(w.c, key)
      // One JSON array unpacked by PostgreSQL: node-postgres encodes a text[] in
      // JavaScript, id by id; JSON.stringify is native. Known memberships are left out before
      // the insert, so that they take no change number (nextval runs for every selected row).
      await tx.send(
        w.c.query(
          `INSERT INTO ${s}.scope_members (scope_id, call_id, seq)
           SELECT $1::integer, id, nextval('${w.schema}.changes') FROM json_array_elements_text($2::json) AS t(id)
           WHERE NOT EXISTS (SELECT 1 FROM ${s}.scope_members m WHERE m.scope_id = $1::integer AND m.call_id = t.id)
           ON CONFLICT (scope_id, call_id) DO NOTHING`,
          [scope, JSON.stringify([...ids])]
        )
      )
    }
    for (const [key, cp] of checkpoints) await tx.send(checkpointStatement(w.c, w.schema, key, cp))
    for (const [runId, counts] of runs) {
      await tx.send(
        w.c.query(`UPDATE ${s}.sync_runs SET stored = $1, requests = $2 WHERE id = $3`, [counts.stored, counts.requests, runId])
      )
    }
  } catch (e) {
    // The statements still in flight fail with the transaction; their errors are not news.
    await tx.settle().catch(() => undefined)
    throw e
  }
  await tx.settle()
  return out
}

/**
 * Sends the upserts of a run of pages with one analysis flag, in statements of UPSERT_CHUNK
 * calls, each counted on its answer. The last copy of each call in the run wins; each copy is
 * counted on its own page. A call this group already wrote with the same fields (and, for a
 * run with analysis, the same items) is not sent again: PostgreSQL would compare it and leave
 * it as it is (unchanged) — in a bulk sync that is every call of a second scope whose pages
 * arrive in the same group.
 */
async function upsertCalls(
  w: GroupWrite,
  tx: TxStatements,
  pages: readonly WritePageInput[],
  counts: PgPageCounts[],
  written: Map<string, WrittenCall>
): Promise<void> {
  const withAnalysis = pages[0]!.includeAnalysis
  const last = new Map<string, { r: CallRecord; page: number }>()
  pages.forEach((p, page) => {
    for (const r of p.records) last.set(r.callId, { r, page })
  })
  const send: Array<{ r: CallRecord }> = []
  for (const [id, { r, page }] of last) {
    const before = written.get(id)
    if (before && sameAsWritten(before, r, withAnalysis)) counts[page]!.unchanged++
    else {
      send.push({ r })
      written.set(id, { r, analysis: withAnalysis ? r : (before?.analysis ?? null) })
    }
  }
  // Earlier copies of a call within the run count as unchanged on their own pages.
  pages.forEach((p, page) => {
    for (const r of p.records) if (last.get(r.callId)!.page !== page) counts[page]!.unchanged++
  })
  for (let i = 0; i < send.length; i += UPSERT_CHUNK) {
    const chunk = send.slice(i, i + UPSERT_CHUNK)
    await tx.send(upsertChunk(w.c, w.schema, chunk, w.now, withAnalysis, w.search), (res) => {
      const changed = new Set<string>()
      for (const row of res.rows) {
        changed.add(row.call_id)
        const n = counts[last.get(row.call_id)!.page]!
        if (row.inserted) n.inserted++
        else n.updated++
      }
      for (const { r } of chunk) if (!changed.has(r.callId)) counts[last.get(r.callId)!.page]!.unchanged++
    })
  }
}
