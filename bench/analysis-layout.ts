/**
 * The analysis reads migration 19 changed, on the same generated calls (10 analysis items
 * each) ingested into a schema 18 file (one row per item) and a schema 19 file (one list of
 * value ids per call), measured alternately in the same run: the in-memory facet column of a
 * key, an equals and a range filter compiled to SQL (a count over every call), a facet's
 * values over a word's matches, and the export's item reads for 100,000 calls (batches of
 * 256, as export hydration reads them). The answers must be equal on both files.
 *
 * CALLSIGHT_BENCH_LAYOUT_CALLS sets the calls (default 100,000; 20,000 with --quick).
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import type Database from 'better-sqlite3'
import { openCache } from '../src/core/cache'
import { namedItems } from '../src/core/cache/analysis-lists'
import { connectionOf } from '../src/core/cache/call-cache'
import { SqliteColumnReads } from '../src/core/cache/read/column-reads'
import { SqliteFacetSqlReads } from '../src/core/cache/read/facet-reads'
import { StatementCache } from '../src/core/cache/read/statements'
import { analysisExists, FOLDED_EQUALS } from '../src/core/search/query/query-sql'
import { rowsExists, rowsNamedItems, rowsTextItems, rowsTextValues } from './baselines/analysis-rows'
import { foldText } from '../src/shared/text/fold'
import { ALL, groups, TYPE } from './team-support'
import { median, type BenchFn, type BenchRow } from './types'

const ROUNDS = 5

function keyIds(db: Database.Database, key: string): number[] {
  return db.prepare('SELECT id FROM analysis_keys WHERE key = ?').pluck().all(key) as number[]
}

export const run: BenchFn = async (ctx) => {
  await Promise.resolve()
  const env = Number(process.env['CALLSIGHT_BENCH_LAYOUT_CALLS'] ?? 0)
  const n = env > 0 ? Math.round(env / 100) * 100 : ctx.quick ? 20_000 : 100_000
  const files = { old: join(ctx.workDir, 'layout-18.db'), new: join(ctx.workDir, 'layout-19.db') }
  for (const [which, file] of Object.entries(files)) {
    rmSync(file, { force: true })
    const cache = openCache(file, which === 'old' ? { schemaVersion: 18 } : {})
    try {
      cache.ensureScope('all', ALL)
      cache.ensureScope('type', TYPE)
      for (const g of groups(n, 11)) cache.writePages(g)
      cache.optimizeIndex()
    } finally {
      cache.close()
    }
    ctx.log(`analysis-layout: ${n.toLocaleString('en')} calls ingested at schema ${which === 'old' ? 18 : 19}`)
  }
  const oldCache = openCache(files.old, { schemaVersion: 18 })
  const newCache = openCache(files.new)
  const oldDb = connectionOf(oldCache)
  const newDb = connectionOf(newCache)
  // As search registers it on its reader's connection (read/index.ts).
  for (const db of [oldDb, newDb])
    db.function('fold_text', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? foldText(v) : v))
  const statements = new StatementCache(newDb)
  const columns = new SqliteColumnReads(statements)
  const facets = new SqliteFacetSqlReads(statements)
  const count = (db: Database.Database, sql: string, params: unknown[]): number =>
    db
      .prepare(`SELECT count(*) FROM calls c WHERE ${sql}`)
      .pluck()
      .get(...params) as number
  const matches = "SELECT rowid AS id FROM calls_fts WHERE calls_fts MATCH 'fatura'"
  const ids = (oldDb.prepare('SELECT id FROM calls ORDER BY id LIMIT 100000').pluck().all() as number[]).slice()
  const exportOld = (): number => {
    let items = 0
    for (let i = 0; i < ids.length; i += 256) items += rowsNamedItems(oldDb, ids.slice(i, i + 256))
    return items
  }
  const exportNew = (): number => {
    let items = 0
    const read = newDb.prepare('SELECT call, items FROM analysis_lists WHERE call IN (SELECT value FROM json_each(?)) ORDER BY call').raw()
    for (let i = 0; i < ids.length; i += 256)
      for (const list of namedItems(newDb, read.all(JSON.stringify(ids.slice(i, i + 256))) as Array<[number, string]>).values())
        items += list.length
    return items
  }
  const csatEq = (db: Database.Database, rows: boolean): number => {
    const k = keyIds(db, 'csat')
    return rows ? count(db, rowsExists(k, FOLDED_EQUALS), ['1']) : count(db, analysisExists(k, FOLDED_EQUALS, ['1']).sql, ['1'])
  }
  const range = 'a.value_num IS NOT NULL AND a.value_num >= ? AND a.value_num <= ?'
  const durationRange = (db: Database.Database, rows: boolean): number => {
    const k = keyIds(db, 'duration')
    return rows ? count(db, rowsExists(k, range), [300, 600]) : count(db, analysisExists(k, range, []).sql, [300, 600])
  }
  const shapes: Array<[string, () => number, () => number]> = [
    [
      'facet column of "agent" (every call, in memory)',
      () => rowsTextItems(oldDb, keyIds(oldDb, 'agent')).values.length,
      () => columns.textItems(keyIds(newDb, 'agent'), null).values.length
    ],
    ['count of csat:1 compiled to SQL', () => csatEq(oldDb, true), () => csatEq(newDb, false)],
    ['count of duration:300..600 compiled to SQL', () => durationRange(oldDb, true), () => durationRange(newDb, false)],
    [
      'values of "topic" over the matches of "fatura" (facet in SQL)',
      () => rowsTextValues(oldDb, keyIds(oldDb, 'topic'), matches).length,
      () => facets.textValues(keyIds(newDb, 'topic'), { sql: matches, params: [] }).length
    ],
    [`export item reads of ${ids.length.toLocaleString('en')} calls`, exportOld, exportNew]
  ]
  const rows: BenchRow[] = []
  try {
    for (const [name, old, now] of shapes) {
      const times = { old: [] as number[], new: [] as number[] }
      let answers: [number, number] = [0, 0]
      for (let r = 0; r < ROUNDS; r++) {
        for (const which of r % 2 === 0 ? (['old', 'new'] as const) : (['new', 'old'] as const)) {
          const t0 = performance.now()
          const got = which === 'old' ? old() : now()
          times[which].push(performance.now() - t0)
          answers[which === 'old' ? 0 : 1] = got
        }
      }
      if (answers[0] !== answers[1]) throw new Error(`analysis-layout: ${name} answers ${answers[0]} on schema 18, ${answers[1]} on 19`)
      const value = median(times.new)
      const baseline = median(times.old)
      ctx.log(`  ${name}: median ${value.toFixed(1)} ms (schema 18: ${baseline.toFixed(1)} ms), answer ${answers[1]}`)
      rows.push({
        metric: name,
        value,
        unit: 'ms',
        baseline,
        ratio: baseline / value,
        note: 'baseline: schema 18 item rows, alternately; ratio = old / new'
      })
      answers = [0, 0]
    }
  } finally {
    oldCache.close()
    newCache.close()
  }
  return { name: 'analysis-layout', rows }
}
