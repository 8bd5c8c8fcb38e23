import type pg from 'pg'
import { roughly, type TeamCount } from '../../shared/domain'
import { q } from './connection'
import type { TeamCompiled } from './team-query'
import { postingsCount } from './team-postings-count'

/**
 * The team cache's count in two steps. A count of a common word, a NOT or an analysis term
 * reads every row of the calls table (the GIN index narrows nothing, and the analysis facts
 * live in the rows), seconds at a million calls; so the first answer is an estimate from a
 * sample of the table's pages, and the exact count runs after it with its own time budget.
 */

/** How many rows the estimate's sample reads (pages chosen at random, all their rows). */
export const DEFAULT_SAMPLE_ROWS = 10_000
/** The exact count's own budget; past it the count stays an estimate. */
export const DEFAULT_EXACT_BUDGET_MS = 10_000
/**
 * Fewer matches than this in the sample say little (a phrase in 71 calls of a million is
 * usually none in a 1 % sample); such a query is rare, which the GIN index answers quickly,
 * so the estimate step tries the exact count within a short budget first.
 */
const FEW_HITS = 30
const RARE_EXACT_MS = 250

export interface CountStatement {
  /** `calls c` predicates, ANDed, numbered from $1 in `params`. */
  where: readonly string[]
  params: readonly unknown[]
}

function whereOf(st: CountStatement): string {
  return st.where.length > 0 ? ` WHERE ${st.where.join(' AND ')}` : ''
}

/**
 * The calls table's rows as the server last counted them: the planner's figure (kept by
 * VACUUM and ANALYZE), or the statistics' live rows when it was never analysed.
 */
async function rowsAbout(c: pg.ClientBase, schema: string): Promise<number> {
  const r = await c.query<{ n: number | null }>(
    `SELECT CASE WHEN k.reltuples >= 0 THEN k.reltuples::float8 ELSE coalesce(s.n_live_tup, 0)::float8 END AS n
     FROM pg_class k LEFT JOIN pg_stat_all_tables s ON s.relid = k.oid WHERE k.oid = to_regclass($1)`,
    [`${q(schema)}.calls`]
  )
  return Number(r.rows[0]?.n ?? 0)
}

/**
 * The estimate: the same predicates over a SYSTEM sample of about `sampleRows` rows (whole
 * pages, each kept with the same chance), scaled up by that chance, so a table grown since
 * it was last analysed is still scaled right. A table not much larger than the sample is counted exactly instead: that
 * costs no more, and an exact number is then the honest answer.
 */
export async function estimateCount(
  c: pg.ClientBase,
  schema: string,
  st: CountStatement | TeamCompiled,
  sampleRows = DEFAULT_SAMPLE_ROWS,
  exactTimedOut = false
): Promise<TeamCount> {
  const total = await rowsAbout(c, schema)
  if (total <= sampleRows * 2) {
    const r = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(schema)}.calls c${whereOf(st)}`, [...st.params])
    return { kind: 'exact', n: Number(r.rows[0]!.n) }
  }
  if (st.where.length === 0) return { kind: 'estimate', about: roughly(total), exactTimedOut }
  const pct = Math.min(100, (100 * sampleRows) / total)
  const n = st.params.length
  // A fixed seed: the same query gives the same estimate, so a list does not jitter.
  const r = await c.query<{ hit: string }>(
    `SELECT count(*) AS hit FROM ${q(schema)}.calls c TABLESAMPLE SYSTEM ($${n + 1}) REPEATABLE (7) WHERE ${st.where.join(' AND ')}`,
    [...st.params, pct]
  )
  const hit = Number(r.rows[0]!.hit)
  if (hit < FEW_HITS && !exactTimedOut) {
    const n = await firstExact(c, schema, st, RARE_EXACT_MS, true)
    if (n !== null) return { kind: 'exact', n }
  }
  return { kind: 'estimate', about: roughly((hit * 100) / pct), exactTimedOut }
}

/** A statement cancelled by its timeout; a role not granted a table (postings before `team init`). */
const TIMED_OUT = '57014'
const NOT_GRANTED = '42501'

/**
 * `work` within `budgetMs`, in a savepoint of the caller's transaction rolled back after it
 * (rather than released: the budget ends with it), so that a statement cut short leaves the
 * transaction usable and its own statement timeout back as it was; null when it failed with
 * one of `nullCodes`.
 */
async function withinBudget<T>(
  c: pg.ClientBase,
  budgetMs: number,
  work: () => Promise<T>,
  nullCodes: readonly string[] = [TIMED_OUT]
): Promise<T | null> {
  await c.query('SAVEPOINT team_count')
  try {
    await c.query("SELECT set_config('statement_timeout', $1, true)", [String(Math.max(1, Math.trunc(budgetMs)))])
    const out = await work()
    await c.query('ROLLBACK TO SAVEPOINT team_count')
    return out
  } catch (e) {
    if (!nullCodes.includes((e as { code?: string }).code ?? '')) throw e
    await c.query('ROLLBACK TO SAVEPOINT team_count')
    return null
  }
}

/** `count(*)` within `budgetMs`; null when the budget ran out. */
async function countWithin(c: pg.ClientBase, schema: string, st: CountStatement, budgetMs: number): Promise<number | null> {
  return withinBudget(c, budgetMs, async () => {
    const r = await c.query<{ n: string }>(`SELECT count(*) AS n FROM ${q(schema)}.calls c${whereOf(st)}`, [...st.params])
    return Number(r.rows[0]!.n)
  })
}

/**
 * The count from the postings (team-postings-count.ts) within `budgetMs`. Null when the
 * postings cannot give it, the budget ran out, or the role is not granted their tables yet
 * (the next `team init` grants them): the caller counts by SQL.
 */
async function countFromPostings(c: pg.ClientBase, schema: string, compiled: TeamCompiled, budgetMs: number): Promise<number | null> {
  return withinBudget(c, budgetMs, () => postingsCount(c, schema, compiled), [TIMED_OUT, NOT_GRANTED])
}

/**
 * The exact count by the postings and by `count(*)`, in the order that suits the query,
 * within `budgetMs` together; null when neither answered in time. A phrase goes to `count(*)`
 * first, for a short while: the GIN index and its recheck count a rare phrase in about 60 ms
 * at 5,000,000 calls, where the postings check its words' AND (16,540 candidates) by SQL in
 * 130; anything else to the postings first (a rare AND of two words: 30 ms, its `count(*)`
 * 500). Without the postings (`postings` false, a bare statement), `count(*)` alone.
 */
async function firstExact(
  c: pg.ClientBase,
  schema: string,
  st: CountStatement | TeamCompiled,
  budgetMs: number,
  postings: boolean
): Promise<number | null> {
  const started = performance.now()
  const left = (): number => budgetMs - (performance.now() - started)
  if (!postings || !('filters' in st)) return countWithin(c, schema, st, budgetMs)
  if (st.phrase) {
    const n = await countWithin(c, schema, st, Math.min(RARE_EXACT_MS, budgetMs))
    if (n !== null) return n
  }
  const n = await countFromPostings(c, schema, st, left())
  if (n !== null) return n
  return left() > 0 ? countWithin(c, schema, st, left()) : null
}

/**
 * The exact count within `budgetMs`: past the budget the answer is the estimate, labelled as
 * such and as cut short, never a number that looks exact.
 */
export async function exactCount(
  c: pg.ClientBase,
  schema: string,
  st: CountStatement | TeamCompiled,
  opts: { budgetMs?: number; sampleRows?: number; postings?: boolean }
): Promise<TeamCount> {
  const n = await firstExact(c, schema, st, opts.budgetMs ?? DEFAULT_EXACT_BUDGET_MS, opts.postings !== false)
  return n !== null ? { kind: 'exact', n } : estimateCount(c, schema, st, opts.sampleRows, true)
}
