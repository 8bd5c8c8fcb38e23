import { q } from './connection'
import { CALL_CAPS, PULL_LIMITS } from './pull-limits'

/** A call id longer than this is refused (the id is sent cut to it, for the message). */
export const CALL_ID_BYTES = 1024

/** A scope key longer than this stops the pull (its memberships cannot be applied without it). */
export const SCOPE_KEY_BYTES = 1024

/**
 * A call's columns, each capped value sent as NULL when larger than the pull takes, with its
 * size beside it (`<column>_bytes`): an oversized value never crosses the wire.
 * octet_length reads a stored value's size from its header, without reading the value.
 */
export const CALL_COLUMNS = [
  `CASE WHEN octet_length(c.call_id) > ${CALL_ID_BYTES} THEN left(c.call_id, 100) ELSE c.call_id END AS call_id`,
  `octet_length(c.call_id) AS call_id_bytes`,
  'c.call_at',
  ...CALL_CAPS.flatMap(([col, field]) => [
    `CASE WHEN octet_length(c.${col}) > ${PULL_LIMITS[field]} THEN NULL ELSE c.${col} END AS ${col}`,
    `octet_length(c.${col}) AS ${col}_bytes`
  ]),
  'c.seq'
].join(', ')

/** A text column sent as NULL when larger than `limit` bytes, its size beside it. */
export function cappedText(col: string, limit: number): string {
  return `CASE WHEN octet_length(${col}) > ${limit} THEN NULL ELSE ${col} END AS ${col}, octet_length(${col}) AS ${col}_bytes`
}

/** Whether call `c` has a value larger than the pull takes (an SQL condition). */
export const CALL_OVERSIZED = [
  `octet_length(c.call_id) > ${CALL_ID_BYTES}`,
  ...CALL_CAPS.map(([col, field]) => `coalesce(octet_length(c.${col}) > ${PULL_LIMITS[field]}, false)`)
].join(' OR ')

/** The bytes call `c` sends (its oversized values count nothing: they are not sent). */
const CALL_BYTES = CALL_CAPS.map(
  ([col, field]) => `coalesce(CASE WHEN octet_length(c.${col}) > ${PULL_LIMITS[field]} THEN 0 ELSE octet_length(c.${col}) END, 0)`
).join(' + ')

/**
 * The change number before the first of `rows` (seq, bytes; ordered by seq) at which the bytes
 * added up pass the batch's budget, but never below the first row's: NULL when they stay
 * within it.
 */
function budgetEnd(rows: string): string {
  return `(SELECT CASE WHEN max(total) > ${PULL_LIMITS.batchBytes} THEN greatest(min(seq) FILTER (WHERE total > ${PULL_LIMITS.batchBytes}) - 1, min(seq)) END
    FROM (SELECT seq, sum(bytes) OVER (ORDER BY seq) AS total FROM (${rows}) w) t)`
}

/**
 * One batch above `lo` as one simple-protocol request: a REPEATABLE READ READ ONLY
 * transaction whose statements all see one snapshot. The batch's upper bound is kept in a
 * transaction-local setting: the size-th change number above lo in calls or in memberships,
 * whichever comes first (index probes), else the last number of any table.
 *
 * One request per batch is what lets the next batch be asked for before the current one is
 * written: the server reads it while this process is busy in SQLite. `lo` and `size` are
 * whole numbers we computed, written into the text (no user input reaches it).
 */
export function batchSql(
  schema: string,
  lo: number,
  size: number,
  since: number | null = null,
  scopes: readonly string[] | null = null
): string {
  if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(size)) throw new Error('batch bounds must be whole numbers')
  const s = q(schema)
  // A window (window.ts) takes only calls dated from `since` on, and their memberships.
  const dated = windowCondition(since)
  // A window of chosen scopes (pull-scopes.ts) takes only their memberships, and the calls
  // that are members of them by the batch's end. A call that joins a chosen scope after its
  // own last change (numbered at or below lo) is carried by that membership's batch.
  const chosen = chosenScopeIds(schema, scopes)
  const ofChosen = chosen === null ? '' : ` AND m.scope_id IN ${chosen}`
  const kth = (table: string): string => `(SELECT seq FROM ${s}.${table} WHERE seq > ${lo} ORDER BY seq OFFSET ${size - 1} LIMIT 1)`
  const last = lastChangeSql(schema)
  // The batch also ends before its calls' bytes pass the budget: those numbered in it, and
  // those its memberships carry along (counted whatever their number: an overestimate).
  const callBudget = budgetEnd(`SELECT c.seq, ${CALL_BYTES} AS bytes FROM ${s}.calls c WHERE c.seq > ${lo} ORDER BY c.seq LIMIT ${size}`)
  const memberBudget = budgetEnd(
    `SELECT m.seq, coalesce((SELECT ${CALL_BYTES} FROM ${s}.calls c WHERE c.call_id = m.call_id), 0) AS bytes FROM ${s}.scope_members m WHERE m.seq > ${lo} ORDER BY m.seq LIMIT ${size}`
  )
  const hi = `current_setting('callsight.hi')::bigint`
  return `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SELECT set_config('callsight.hi', coalesce(least(${kth('calls')}, ${kth('scope_members')}, ${callBudget}, ${memberBudget}), ${last}, ${lo})::text, true) AS hi;
SELECT ${CALL_COLUMNS} FROM ${s}.calls c WHERE c.seq > ${lo} AND c.seq <= ${hi}${dated}${memberOf(schema, chosen, hi)} ORDER BY c.seq;
SELECT s.scope_key, m.call_id, coalesce(${CALL_OVERSIZED}, false) AS refused FROM ${s}.scope_members m JOIN ${s}.scopes s ON s.id = m.scope_id
  LEFT JOIN ${s}.calls c ON c.call_id = m.call_id WHERE m.seq > ${lo} AND m.seq <= ${hi}${dated}${ofChosen};
SELECT DISTINCT ON (c.call_id) ${CALL_COLUMNS} FROM ${s}.scope_members m
  CROSS JOIN LATERAL (SELECT * FROM ${s}.calls c WHERE c.call_id = m.call_id AND ${chosen === null ? `c.seq > ${hi}` : `(c.seq > ${hi} OR c.seq <= ${lo})`}${dated}) c
  WHERE m.seq > ${lo} AND m.seq <= ${hi}${ofChosen};
SELECT ${cappedText('scope_key', SCOPE_KEY_BYTES)}, ${cappedText('filters', PULL_LIMITS.scopeJson)}, ${cappedText('coverage', PULL_LIMITS.scopeJson)},
  last_success_at, seq, seq <= ${hi} AS whole FROM ${s}.scopes
  WHERE ((seq > ${lo} AND seq <= ${hi}) OR (seq > ${hi} AND id IN (SELECT scope_id FROM ${s}.scope_members WHERE seq > ${lo} AND seq <= ${hi})))${chosen === null ? '' : ` AND id IN ${chosen}`};
SELECT ${cappedText('value', CALL_ID_BYTES)}, ${cappedText('description', PULL_LIMITS.callTypeDescription)} FROM ${s}.call_types WHERE seq > ${lo} AND seq <= ${hi};
COMMIT;`
}

/** The team cache's last change number: the highest of every numbered table (null when empty). */
export function lastChangeSql(schema: string): string {
  const s = q(schema)
  return `greatest((SELECT max(seq) FROM ${s}.calls), (SELECT max(seq) FROM ${s}.scope_members), (SELECT max(seq) FROM ${s}.scopes), (SELECT max(seq) FROM ${s}.call_types))`
}

/** ` AND c.call_at >= since` for a window, nothing for everything. */
export function windowCondition(since: number | null): string {
  if (since === null) return ''
  if (!Number.isSafeInteger(since)) throw new Error('a window starts at a whole number')
  return ` AND c.call_at >= ${since}`
}

/** A string as an SQL literal (standard_conforming_strings, PostgreSQL's default since 9.1: a backslash is itself). */
export function sqlText(v: string): string {
  if (v.includes('\0')) throw new Error('a scope key cannot hold a NUL character')
  return `'${v.replace(/'/g, "''")}'`
}

/** The ids of the chosen scopes as an SQL subquery; null for every scope. */
export function chosenScopeIds(schema: string, keys: readonly string[] | null): string | null {
  if (keys === null) return null
  if (keys.length === 0) throw new Error('a window of scopes holds at least one')
  return `(SELECT id FROM ${q(schema)}.scopes WHERE scope_key IN (${keys.map(sqlText).join(', ')}))`
}

/** ` AND call c is a member of a chosen scope by change number upTo`; nothing for every scope. */
export function memberOf(schema: string, chosen: string | null, upTo: string | number): string {
  if (chosen === null) return ''
  return ` AND EXISTS (SELECT 1 FROM ${q(schema)}.scope_members cm WHERE cm.call_id = c.call_id AND cm.scope_id IN ${chosen} AND cm.seq <= ${upTo})`
}
