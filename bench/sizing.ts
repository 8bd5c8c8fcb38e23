/**
 * What a team cache and a pulled cache weigh (docs/team.md, "Sizing"): generated calls with
 * 10 analysis items each (the search bench's data) written through the store into one scope of
 * a throwaway PostgreSQL, then pulled into an empty SQLite file as the CLI pulls. Prints
 * bytes per call for every table and index of both stores: PostgreSQL's from
 * `pg_total_relation_size` (heap, TOAST and indexes of each table), SQLite's from the `dbstat`
 * virtual table (every B-tree, the full-text index's shadow tables included).
 *
 * The pull is made twice, into today's schema and into schema 18 (one row per analysis item,
 * the layout before migration 19's lists), so both sizes come from the same run; the same
 * calls are then ingested locally into both layouts, alternately (sizing-local.ts), for
 * ingest speed end to end with the index.
 *
 * CALLSIGHT_BENCH_SIZING_CALLS sets the calls (default 250,000; 50,000 with --quick);
 * CALLSIGHT_BENCH_SIZING_KEEP=FILE keeps a copy of the pulled file there;
 * CALLSIGHT_BENCH_SIZING_LOCAL=1 runs only the local part (no PostgreSQL);
 * CALLSIGHT_BENCH_SIZING_PG_ONLY=1 only the PostgreSQL part (the writes, search off and on).
 * The PostgreSQL part is skipped, with one line, when no server binaries are installed.
 */
import { copyFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openCache } from '../src/core/cache'
import { createPool, pullTeamCache } from '../src/core/team'
import { findPgBin, startPgCluster } from '../test/support/pg-cluster'
import { localSizing } from './sizing-local'
import { sqliteSizes } from './sizing-sizes'
import { PG_BENCH_TUNING } from './team-support'
import { writeBoth } from './sizing-team'
import type { BenchFn, BenchRow } from './types'

const PER_MILLION = 1e6

export const run: BenchFn = async (ctx) => {
  const env = Number(process.env['CALLSIGHT_BENCH_SIZING_CALLS'] ?? 0)
  const n = env > 0 ? Math.round(env / 100) * 100 : ctx.quick ? 50_000 : 250_000
  const rows: BenchRow[] = []
  const bin = process.env['CALLSIGHT_BENCH_SIZING_LOCAL'] === '1' ? null : findPgBin()
  if (!bin) {
    ctx.log(
      "sizing: the PostgreSQL part skipped (CALLSIGHT_BENCH_SIZING_LOCAL=1, or no PostgreSQL server binaries: Debian's postgresql package)"
    )
    return { name: 'sizing', rows: localSizing(ctx, n) }
  }
  const cluster = await startPgCluster({ settings: PG_BENCH_TUNING })
  try {
    await cluster.sql('CREATE DATABASE bench')
    const url = cluster.urlFor({ database: 'bench' })
    const written = await writeBoth(ctx, url, n)
    rows.push(...written.rows)
    if (process.env['CALLSIGHT_BENCH_SIZING_PG_ONLY'] === '1') return { name: 'sizing', rows }

    const pulled = async (name: string, schemaVersion?: number): Promise<number> => {
      const file = join(ctx.workDir, name)
      const pool = createPool({ url, schema: 'bench', maxConnections: 2 })
      const cache = openCache(file, schemaVersion === undefined ? {} : { schemaVersion })
      try {
        await pullTeamCache({ pool, schema: 'bench', sourceLabel: url, cache, deferIndexFrom: 20_000 })
      } finally {
        cache.close()
        await pool.end()
      }
      const fileBytes = statSync(file).size
      ctx.log(
        `pulled SQLite file${schemaVersion === undefined ? '' : ` at schema ${schemaVersion}`}, ${n.toLocaleString('en')} calls: ${(fileBytes / n).toFixed(1)} B/call`
      )
      for (const s of sqliteSizes(file).filter((x) => x.bytes >= 65536)) ctx.log(`  ${s.name}: ${(s.bytes / n).toFixed(1)} B/call`)
      const keep = process.env['CALLSIGHT_BENCH_SIZING_KEEP']
      if (keep && schemaVersion === undefined) copyFileSync(file, keep)
      return fileBytes
    }
    const before = await pulled('pulled-schema18.sqlite', 18)
    const fileBytes = await pulled('pulled.sqlite')
    rows.push({
      metric: `pulled SQLite file per 1,000,000 calls with 10 items (${n.toLocaleString('en')} calls)`,
      value: ((fileBytes / n) * PER_MILLION) / 1e6,
      unit: 'MB',
      target: 800,
      targetKind: 'max',
      baseline: ((before / n) * PER_MILLION) / 1e6,
      ratio: before / fileBytes,
      note: `${(fileBytes / n).toFixed(0)} B/call; baseline: schema 18 (one row per analysis item) pulled in this run; ratio = old / new`
    })
    rows.push(...localSizing(ctx, n))
  } finally {
    await cluster.stop()
  }
  return { name: 'sizing', rows }
}
