/**
 * The team cache's size and the writer's rate with its search off and on, in one run: the same
 * generated calls (10 analysis items each, one scope) written through the store's write path
 * (PgSyncStore.writePages, as the worker writes) into two schemas of one cluster, group by
 * group alternately (the order swapped every group), so both see the same load. Also what
 * each search column would weigh in a slimmer form (pg_column_size over the same rows): the
 * tsvector without positions and weights, the facts as a flat text array; and search enabled
 * on the stored calls afterwards (the backfill's time, the size with the indexes built once;
 * CALLSIGHT_BENCH_SIZING_ENABLE=0 leaves that out).
 */
import { disableTeamSearch, enableTeamSearch, PgSyncStore } from '../src/core/team'
import { ALL, groups } from './team-support'
import type { BenchContext, BenchRow } from './types'

const PER_MILLION = 1e6

/** Bytes of each table (heap + TOAST + its indexes) and of each index alone, in one schema. */
export async function pgSizes(pool: PgSyncStore['pool'], schema: string): Promise<{ name: string; bytes: number; index: boolean }[]> {
  const r = await pool.query<{ name: string; bytes: string; kind: string }>(
    `SELECT c.relname AS name, c.relkind AS kind,
            CASE WHEN c.relkind = 'r' THEN pg_total_relation_size(c.oid) ELSE pg_relation_size(c.oid) END AS bytes
       FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
      WHERE ns.nspname = $1 AND c.relkind IN ('r', 'i')
      ORDER BY bytes DESC`,
    [schema]
  )
  return r.rows.map((x) => ({ name: x.name, bytes: Number(x.bytes), index: x.kind === 'i' }))
}

interface Side {
  label: string
  schema: string
  store: PgSyncStore
  ms: number
}

async function report(ctx: BenchContext, side: Side, n: number): Promise<{ perCall: number; memberBytes: number }> {
  const members = Number((await side.store.pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${side.schema}.scope_members`)).rows[0]!.n)
  const sizes = await pgSizes(side.store.pool, side.schema)
  const total = sizes.filter((s) => !s.index).reduce((s, t) => s + t.bytes, 0)
  ctx.log(`PostgreSQL, search ${side.label}, ${n.toLocaleString('en')} calls, ${members.toLocaleString('en')} memberships (one scope):`)
  for (const s of sizes.filter((x) => x.bytes >= 65536))
    ctx.log(`  ${s.index ? 'index' : 'table'} ${s.name}: ${(s.bytes / n).toFixed(1)} B/call`)
  const memberBytes = sizes.find((t) => !t.index && t.name === 'scope_members')?.bytes ?? 0
  ctx.log(`  all: ${(total / n).toFixed(1)} B/call; memberships ${(memberBytes / Math.max(1, members)).toFixed(1)} B each`)
  ctx.log(`  written in ${(side.ms / 1000).toFixed(1)} s: ${((n / side.ms) * 1000).toFixed(0)} calls/s`)
  return { perCall: total / n, memberBytes: memberBytes / Math.max(1, members) }
}

/** What the search columns weigh per call now, and in the slimmer forms considered. */
async function columnForms(ctx: BenchContext, store: PgSyncStore, schema: string): Promise<void> {
  const r = await store.pool.query<Record<string, string>>(
    `SELECT avg(pg_column_size(search)) AS search, avg(pg_column_size(strip(search))) AS stripped,
            avg(pg_column_size(facts)) AS facts,
            avg(pg_column_size((SELECT array_agg(e.key || chr(31) || (x #>> '{}')) FROM jsonb_each(facts) e, jsonb_array_elements(e.value) x
                                 WHERE jsonb_typeof(x) = 'string'))) AS facts_text,
            avg(pg_column_size((SELECT jsonb_object_agg(e.key, (SELECT jsonb_agg(x) FROM jsonb_array_elements(e.value) x WHERE jsonb_typeof(x) = 'number'))
                                 FROM jsonb_each(facts) e WHERE jsonb_path_exists(e.value, '$[*] ? (@.type() == "number")')))) AS facts_numbers,
            avg(pg_column_size(title) + pg_column_size(summary) + pg_column_size(analysis)) AS text
       FROM ${schema}.calls`
  )
  const x = r.rows[0]!
  const b = (k: string): string => `${Number(x[k]).toFixed(0)} B`
  ctx.log(
    `  per call: search ${b('search')} (without positions and weights ${b('stripped')}); facts ${b('facts')} ` +
      `(as a key␟value text array ${b('facts_text')} + numbers only as jsonb ${b('facts_numbers')}); the stored text ${b('text')}`
  )
}

/**
 * Search turned off and on again over the stored calls, as an operator enables it on a cache
 * in use: the backfill's time, and the size after VACUUM FULL (the backfill updates every
 * row, so the table holds a dead version of each until then) with the indexes built once.
 */
async function enableOnStored(ctx: BenchContext, side: Side, n: number): Promise<{ perCall: number; seconds: number }> {
  await disableTeamSearch(side.store.pool, side.schema)
  await side.store.pool.query(`VACUUM FULL ${side.schema}.calls`)
  const t0 = performance.now()
  await enableTeamSearch(side.store.pool, side.schema)
  const seconds = (performance.now() - t0) / 1000
  const before = (await pgSizes(side.store.pool, side.schema)).filter((s) => !s.index).reduce((s, t) => s + t.bytes, 0)
  await side.store.pool.query(`VACUUM FULL ${side.schema}.calls`)
  await side.store.pool.query(`VACUUM ANALYZE ${side.schema}.calls`)
  const sizes = await pgSizes(side.store.pool, side.schema)
  const total = sizes.filter((s) => !s.index).reduce((s, t) => s + t.bytes, 0)
  ctx.log(`search enabled on the ${n.toLocaleString('en')} stored calls in ${seconds.toFixed(1)} s:`)
  ctx.log(`  all: ${(before / n).toFixed(1)} B/call right after, ${(total / n).toFixed(1)} B/call after VACUUM FULL`)
  for (const s of sizes.filter((x) => x.index && x.bytes >= 65536)) ctx.log(`  index ${s.name}: ${(s.bytes / n).toFixed(1)} B/call`)
  return { perCall: total / n, seconds }
}

/** Writes n calls into a schema with search off and one with search on, alternately; reports both. */
export async function writeBoth(ctx: BenchContext, url: string, n: number): Promise<{ rows: BenchRow[] }> {
  const off: Side = { label: 'off', schema: 'bench', store: await PgSyncStore.open({ url, schema: 'bench', migrate: true }), ms: 0 }
  const on: Side = {
    label: 'on',
    schema: 'bench_search',
    store: await PgSyncStore.open({ url, schema: 'bench_search', migrate: true }),
    ms: 0
  }
  try {
    await enableTeamSearch(on.store.pool, on.schema)
    for (const side of [off, on]) await side.store.ensureScope('all', ALL)
    let k = 0
    for (const group of groups(n, 11)) {
      const one = group.filter((p) => p.scopeKey === 'all')
      if (!one.length) continue
      for (const side of k++ % 2 === 0 ? [off, on] : [on, off]) {
        const t0 = performance.now()
        await side.store.writePages(one)
        side.ms += performance.now() - t0
      }
    }
    await off.store.pool.query('VACUUM ANALYZE')
    const a = await report(ctx, off, n)
    const b = await report(ctx, on, n)
    await columnForms(ctx, on.store, on.schema)
    const enabled = process.env['CALLSIGHT_BENCH_SIZING_ENABLE'] === '0' ? null : await enableOnStored(ctx, on, n)
    const rate = (s: Side): number => (n / s.ms) * 1000
    return {
      rows: [
        {
          metric: `PostgreSQL per 1,000,000 calls with 10 items, one scope, search off (${n.toLocaleString('en')} calls)`,
          value: (a.perCall * PER_MILLION) / 1e6,
          unit: 'MB',
          target: 900,
          targetKind: 'max',
          note: `${a.perCall.toFixed(0)} B/call; a membership ${a.memberBytes.toFixed(0)} B`
        },
        { metric: 'PostgreSQL bytes per membership', value: a.memberBytes, unit: 'B' },
        {
          metric: `PostgreSQL per 1,000,000 calls with 10 items, one scope, search on (${n.toLocaleString('en')} calls)`,
          value: (b.perCall * PER_MILLION) / 1e6,
          unit: 'MB',
          baseline: (a.perCall * PER_MILLION) / 1e6,
          ratio: b.perCall / a.perCall,
          note: `${b.perCall.toFixed(0)} B/call; ratio = on / off`
        },
        ...(enabled === null
          ? []
          : [
              {
                metric: `PostgreSQL per 1,000,000 calls, search enabled on a stored cache (${n.toLocaleString('en')} calls, VACUUM FULL after)`,
                value: (enabled.perCall * PER_MILLION) / 1e6,
                unit: 'MB',
                note: `${enabled.perCall.toFixed(0)} B/call; enable took ${enabled.seconds.toFixed(0)} s (${(n / enabled.seconds).toFixed(0)} calls/s)`
              }
            ]),
        {
          metric: `the writer (writePages), search off (${n.toLocaleString('en')} calls, alternating with on)`,
          value: rate(off),
          unit: 'calls/s'
        },
        {
          metric: `the writer (writePages), search on (${n.toLocaleString('en')} calls, alternating with off)`,
          value: rate(on),
          unit: 'calls/s',
          baseline: rate(off),
          ratio: rate(off) / rate(on),
          note: 'ratio = off / on (how many times slower with search on)'
        }
      ]
    }
  } finally {
    await off.store.close()
    await on.store.close()
  }
}
