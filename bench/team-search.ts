/**
 * `npm run bench -- --only team-search`: the query bench's shapes answered by the team cache
 * in PostgreSQL (src/core/team/team-search.ts). N calls of bench/search-data.ts (10 analysis
 * items) are written straight into a schema set up by the migrations, with the search columns
 * the writer computes, in batches of one statement each; the indexes are built after. The
 * loaded cluster is kept under /var/tmp/callsight-bench/team-search-N (CALLSIGHT_BENCH_KEEP_DIR
 * for another folder), so later runs only measure. N: CALLSIGHT_BENCH_TEAM_SEARCH_CALLS, or
 * 1,000,000 (100,000 with --quick).
 *
 * Before measuring, the count's postings (schema 11) are built for the chunks left dirty,
 * timed, and their size logged. Per shape: the first page; the count in two steps (the
 * estimate's time and its error against the exact figure, then the exact count's time, from
 * the postings); the planner's row estimate's error (the estimate not chosen); and the old
 * exact count (its `count(*)`, postings off) as the baseline, the three counts alternating in
 * each round. A postings count that is not the old one's figure fails the bench.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import type pg from 'pg'
import { createPool, migratePg, searchTeamCache } from '../src/core/team'
import { enableTeamSearch } from '../src/core/team/pg-migration-8'
import { buildDirtyChunks } from '../src/core/team/team-postings-build'
import { readCatalog, readOnlyTransaction, type TeamSearchOptions } from '../src/core/team/team-search'
import { compileTeamQuery } from '../src/core/team/team-query'
import { searchFacts, searchVector } from '../src/core/team/search-columns'
import { parseNumeric } from '../src/core/cache'
import { SearchQuery } from '../src/shared/domain'
import { findPgBin, startPgCluster } from '../test/support/pg-cluster'
import { queryShapes } from '../test/support/query-shapes'
import { wordsNear } from './query'
import { COMMON_TERM, makeCall, prng, START_MS } from './search-data'
import { PG_BENCH_TUNING } from './team-support'
import { median, percentile, type BenchFn, type BenchRow } from './types'

const DAY = 24 * 3600 * 1000
const SCHEMA = 'bench'
const BATCH = 5000

type Pool = ReturnType<typeof createPool>

/** The planner's row estimate for the query's rows (the alternative to sampling). */
async function plannerRows(team: TeamSearchOptions, query: SearchQuery): Promise<number> {
  return readOnlyTransaction(team, async (c: pg.PoolClient) => {
    const compiled = compileTeamQuery(query, await readCatalog(c, team.schema), team.schema)
    const where = compiled.where.length > 0 ? ` WHERE ${compiled.where.join(' AND ')}` : ''
    const r = await c.query<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>(
      `EXPLAIN (FORMAT JSON) SELECT 1 FROM ${team.schema}.calls c${where}`,
      compiled.params
    )
    return r.rows[0]!['QUERY PLAN'][0]!.Plan['Plan Rows']
  })
}

const errorPct = (about: number, exact: number): number => (exact === 0 ? (about === 0 ? 0 : 100) : (100 * Math.abs(about - exact)) / exact)

export async function load(pool: Pool, n: number, log: (l: string) => void): Promise<void> {
  await migratePg(pool, SCHEMA)
  // A new cache starts with search off; on while it is empty, it costs nothing.
  await enableTeamSearch(pool, SCHEMA)
  // Built after the rows: one sort instead of n insertions.
  await pool.query(`DROP INDEX ${SCHEMA}.calls_search, ${SCHEMA}.calls_by_date, ${SCHEMA}.calls_by_seq, ${SCHEMA}.calls_search_missing`)
  const rnd = prng(42)
  const keys = new Map<string, { items: number; numeric: number }>()
  const t0 = performance.now()
  let pending: Promise<unknown> | null = null
  for (let i = 0; i < n; i += BATCH) {
    const cols: unknown[][] = [[], [], [], [], [], [], [], [], []]
    for (let k = i; k < Math.min(n, i + BATCH); k++) {
      const r = makeCall(k, n, rnd).record
      for (const a of r.analysis) {
        const id = JSON.stringify([a.key, a.friendlyName])
        const e = keys.get(id) ?? { items: 0, numeric: 0 }
        e.items++
        if (parseNumeric(a.value) !== null) e.numeric++
        keys.set(id, e)
      }
      const row = [r.callId, r.callAt, r.callDate, r.title, r.summary, JSON.stringify(r.extra)]
      row.push(
        JSON.stringify(r.analysis.map((a) => [a.key, a.friendlyName, a.value])),
        searchVector(r, true),
        JSON.stringify(searchFacts(r))
      )
      row.forEach((v, c) => cols[c]!.push(v))
    }
    await pending
    pending = pool.query(
      `INSERT INTO ${SCHEMA}.calls (call_id, call_at, call_date, title, summary, extra, analysis, first_seen_at, last_changed_at, seq, search, facts)
       SELECT e.a, e.b::bigint, e.c, e.d, e.e, e.f, e.g, 0, 0, nextval('${SCHEMA}.changes'), e.h::tsvector, e.i::jsonb
       FROM ROWS FROM (${cols.map((_, c) => `json_array_elements_text($${c + 1}::json)`).join(', ')}) AS e(a, b, c, d, e, f, g, h, i)`,
      cols.map((c) => JSON.stringify(c))
    )
    if ((i / BATCH) % 20 === 0) log(`  ${i.toLocaleString('en')} calls, ${((performance.now() - t0) / 1000).toFixed(0)} s`)
  }
  await pending
  for (const [id, e] of keys) {
    const [key, name] = JSON.parse(id) as [string, string]
    await pool.query(`INSERT INTO ${SCHEMA}.search_keys VALUES ($1, $2, $3, $4)`, [key, name, e.items, e.numeric])
  }
  log(`  rows in ${((performance.now() - t0) / 1000).toFixed(0)} s; building indexes`)
  await pool.query(`SET maintenance_work_mem = '1GB'`)
  await pool.query(`CREATE INDEX calls_search ON ${SCHEMA}.calls USING gin (search)`)
  await pool.query(`CREATE INDEX calls_by_date ON ${SCHEMA}.calls (call_at, call_id COLLATE "C")`)
  await pool.query(`CREATE INDEX calls_by_seq ON ${SCHEMA}.calls (seq)`)
  await pool.query(`CREATE INDEX calls_search_missing ON ${SCHEMA}.calls (call_id) WHERE search IS NULL`)
  await pool.query('VACUUM ANALYZE')
  await pool.query(`INSERT INTO ${SCHEMA}.meta (key, value) VALUES ('bench_loaded', $1)`, [String(n)])
  log(`  loaded in ${((performance.now() - t0) / 1000).toFixed(0)} s`)
}

async function sizes(pool: Pool, n: number): Promise<Array<[string, number]>> {
  const r = await pool.query<{ name: string; bytes: string }>(
    `SELECT c.relname AS name, pg_relation_size(c.oid) + coalesce(pg_total_relation_size(c.reltoastrelid), 0) AS bytes
     FROM pg_class c JOIN pg_namespace s ON s.oid = c.relnamespace WHERE s.nspname = $1 AND c.relkind IN ('r', 'i') ORDER BY 2 DESC`,
    [SCHEMA]
  )
  const cols = await pool.query<{ search: string; facts: string }>(
    `SELECT avg(pg_column_size(search)) AS search, avg(pg_column_size(facts)) AS facts FROM ${SCHEMA}.calls TABLESAMPLE SYSTEM (1)`
  )
  return [
    ...r.rows.map((x): [string, number] => [x.name, Number(x.bytes) / n]),
    ['column search (avg, sampled)', Number(cols.rows[0]!.search)],
    ['column facts (avg, sampled)', Number(cols.rows[0]!.facts)]
  ]
}

export const run: BenchFn = async (ctx) => {
  const bin = findPgBin()
  if (!bin) {
    ctx.log("team-search: skipped: no PostgreSQL server binaries found (install Debian's postgresql package)")
    return { name: 'team-search', rows: [] }
  }
  const n = Number(process.env['CALLSIGHT_BENCH_TEAM_SEARCH_CALLS']) || (ctx.quick ? 100_000 : 1_000_000)
  const iters = Number(process.env['CALLSIGHT_BENCH_TEAM_SEARCH_ITERS']) || (ctx.quick ? 5 : 7)
  const keepDir = join(process.env['CALLSIGHT_BENCH_KEEP_DIR'] ?? '/var/tmp/callsight-bench', `team-search-${n}`)
  const loaded = existsSync(join(keepDir, 'data', 'PG_VERSION'))
  const cluster = await startPgCluster({ settings: PG_BENCH_TUNING, keepDir })
  const rows: BenchRow[] = []
  try {
    if (!loaded) await cluster.sql('CREATE DATABASE bench')
    const pool = createPool({ url: cluster.urlFor({ database: 'bench' }), schema: SCHEMA, maxConnections: 2 })
    try {
      const done = await pool.query(`SELECT to_regclass('${SCHEMA}.meta') IS NOT NULL AS ok`)
      const have = done.rows[0]?.ok
        ? await pool.query<{ value: string }>(`SELECT value FROM ${SCHEMA}.meta WHERE key = 'bench_loaded'`)
        : null
      if (have?.rows[0]?.value !== String(n)) {
        ctx.log(`team-search: loading ${n.toLocaleString('en')} calls into ${keepDir}`)
        await load(pool, n, ctx.log)
      } else ctx.log(`team-search: ${n.toLocaleString('en')} calls already loaded in ${keepDir}`)
      // The count's postings: built for what the load or an older run left dirty (schema 11 on an older load).
      await migratePg(pool, SCHEMA)
      const b0 = performance.now()
      const cpu0 = process.cpuUsage()
      const built = await buildDirtyChunks(pool, SCHEMA)
      if (built.built > 0) {
        const ms = performance.now() - b0
        const cpu = process.cpuUsage(cpu0)
        ctx.log(
          `  count postings: ${built.built} chunks built in ${(ms / 1000).toFixed(1)} s (${((ms / 1000) * (1e6 / n)).toFixed(1)} s per 1M calls; ` +
            `Node CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s)`
        )
        rows.push({ metric: 'team cache, count postings build', value: (ms / 1000) * (1e6 / n), unit: 's per 1M calls' })
      }
      const posts = await pool.query<{ bytes: string }>(`SELECT pg_total_relation_size('${SCHEMA}.count_posts') AS bytes`)
      const postBytes = Number(posts.rows[0]!.bytes)
      ctx.log(
        `  count postings: ${(postBytes / 2 ** 20).toFixed(0)} MiB, ${((postBytes * (1e6 / n)) / 2 ** 20).toFixed(0)} MiB per 1M calls`
      )
      rows.push({ metric: 'team cache, count postings size', value: (postBytes * (1e6 / n)) / 2 ** 20, unit: 'MiB per 1M calls' })
      for (const [name, b] of await sizes(pool, n)) ctx.log(`  ${name}: ${b.toFixed(1)} B/call`)

      const [w1, w2] = wordsNear(0.05, 2, n)
      const [half] = wordsNear(0.5, 1, n)
      const shapes = queryShapes({ w1: w1!, w2: w2!, half: half!, common: COMMON_TERM, end: START_MS + 365 * DAY })
      const team: TeamSearchOptions = { pool, schema: SCHEMA, statementTimeoutMs: 120_000, exactBudgetMs: 120_000 }
      for (const [label, shape] of shapes) {
        // One scope holds every call: no membership filter (results 'all'); relevance is
        // refused by the team cache, so that shape is measured newest first.
        const q = SearchQuery.parse({ ...shape, results: 'all', sort: shape.sort === 'relevance' ? 'date_desc' : shape.sort })
        const page: number[] = []
        // A phrase's page is gathered first (team-search.ts pageForm); the planner's own form beside it, alternately.
        const phrase = await readOnlyTransaction(team, async (c) => compileTeamQuery(q, await readCatalog(c, SCHEMA), SCHEMA).phrase)
        const plannedPage: number[] = []
        const estimate: number[] = []
        const exact: number[] = []
        const before: number[] = []
        let oldTotal = -1
        let total = 0
        let about = 0
        let estimateKind = ''
        for (let k = 0; k < iters; k++) {
          const pages: Array<[TeamSearchOptions, number[]]> = [[team, page]]
          if (phrase) pages.push([{ ...team, gatherPhrases: false }, plannedPage])
          for (let j = 0; j < pages.length; j++) {
            const [opts, times] = pages[(j + k) % pages.length]!
            const t0 = performance.now()
            await searchTeamCache(opts, q, { offset: 0, limit: 100 })
            times.push(performance.now() - t0)
          }
          // The three counts in turn, the first of them rotating: none always runs on a cache the others warmed.
          const steps: Array<() => Promise<void>> = [
            async () => {
              const t = performance.now()
              const r = (await searchTeamCache(team, q, { offset: 0, limit: 0, count: 'estimate' })).total!
              estimate.push(performance.now() - t)
              estimateKind = r.kind
              about = r.kind === 'estimate' ? r.about : r.n
            },
            async () => {
              const t = performance.now()
              const r = (await searchTeamCache(team, q, { offset: 0, limit: 0, count: 'exact' })).total!
              exact.push(performance.now() - t)
              if (r.kind !== 'exact') throw new Error(`team-search: the exact count of ${label} ran out of its budget`)
              total = r.n
            },
            async () => {
              const t = performance.now()
              const r = (await searchTeamCache({ ...team, postings: false }, q, { offset: 0, limit: 0, count: 'exact' })).total!
              before.push(performance.now() - t)
              if (r.kind !== 'exact') throw new Error(`team-search: the old exact count of ${label} ran out of its budget`)
              oldTotal = r.n
            }
          ]
          for (let j = 0; j < steps.length; j++) await steps[(j + k) % steps.length]!()
        }
        if (oldTotal !== total) throw new Error(`team-search: ${label}: the postings count ${total} is not count(*) ${oldTotal}`)
        const planned = await plannerRows(team, q)
        const err = errorPct(about, total)
        const plannerErr = errorPct(planned, total)
        const note = `${total.toLocaleString('en')} matches${shape.sort === 'relevance' ? '; newest first (relevance refused)' : ''}`
        const ratio = median(before) / median(exact)
        ctx.log(
          `  ${label}: page p95 ${percentile(page, 95).toFixed(0)} ms${phrase ? ` (the planner's form: ${percentile(plannedPage, 95).toFixed(0)})` : ''}; estimate p95 ${percentile(estimate, 95).toFixed(0)} ms ` +
            `(${estimateKind === 'exact' ? 'exact at once' : `about ${about.toLocaleString('en')}, off ${err.toFixed(1)} %`}; ` +
            `planner ${Math.round(planned).toLocaleString('en')}, off ${plannerErr.toFixed(1)} %); exact p95 ${percentile(exact, 95).toFixed(0)} ms; ` +
            `old exact p95 ${percentile(before, 95).toFixed(0)} ms; medians ${median(exact).toFixed(0)} vs ${median(before).toFixed(0)} ms (old/postings ${ratio.toFixed(2)}) (${note})`
        )
        rows.push(
          {
            metric: `team cache, first page of 100: ${label}`,
            value: percentile(page, 95),
            unit: 'ms p95',
            target: 300,
            targetKind: 'max',
            ...(phrase
              ? {
                  baseline: percentile(plannedPage, 95),
                  ratio: median(plannedPage) / median(page),
                  note: `${note}; gathered first; baseline: the planner's own form, same run, alternating; ratio: planner's / gathered, medians`
                }
              : { note })
          },
          {
            metric: `team cache, count estimate: ${label}`,
            value: percentile(estimate, 95),
            unit: 'ms p95',
            target: 100,
            targetKind: 'max',
            note: `${note}; ${estimateKind === 'exact' ? 'exact at once' : `about ${about}, off ${err.toFixed(1)} %`}`
          },
          {
            metric: `team cache, estimate error: ${label}`,
            value: err,
            unit: '%',
            note: `planner's row estimate off ${plannerErr.toFixed(1)} %`
          },
          {
            metric: `team cache, exact count: ${label}`,
            value: percentile(exact, 95),
            unit: 'ms p95',
            baseline: percentile(before, 95),
            ratio,
            target: 1000,
            targetKind: 'max',
            note: `${note}; exact from the count's postings; baseline: the old exact count(*), same run, alternating; ratio: old / postings, medians`
          }
        )
      }
    } finally {
      await pool.end()
    }
  } finally {
    await cluster.stop()
  }
  return { name: 'team-search', rows }
}
