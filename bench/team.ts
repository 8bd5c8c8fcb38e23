/**
 * The team cache on PostgreSQL (docs/team.md), each figure beside the direct path measured
 * in the same run:
 * - worker sync into PostgreSQL at a time-scaled rate limit: share of the ceiling and 429s,
 *   against the same sync into SQLite;
 * - write throughput of a bulk sync (pages of 100 calls with 10 items, 20 per transaction, as
 *   the engine stores pages that arrive together), PostgreSQL and SQLite on the same pages,
 *   interleaved group by group so both see the same machine;
 * - a pull of 1,000,000 calls into an empty local cache, end to end in its own process (the
 *   built CLI), with its peak resident memory; against the direct ingest rate;
 * - the same pull as the app makes it (bench/app-pull-child.ts), its memory against the same
 *   pull with V8's default heap growth;
 * - incremental pulls of 1,000 changed calls;
 * - ten workstations pulling: requests to the service (counted by the reference service);
 * - sizing: rows and bytes per call in PostgreSQL and in the pulled SQLite file.
 * Skipped, with one line, when no PostgreSQL server binaries are installed.
 *
 * While iterating: CALLSIGHT_BENCH_TEAM_CALLS sets the calls written and pulled (default
 * 1,000,000; 100,000 with --quick), CALLSIGHT_BENCH_TEAM_PARTS a comma list of the parts
 * to run (worker,write,ten; the write part includes the pulls; default all);
 * CALLSIGHT_BENCH_TEAM_OLD_PULL=0 leaves out the pull by the old path (index each batch),
 * CALLSIGHT_BENCH_TEAM_APP_PULL=0 leaves out the app's pulls,
 * CALLSIGHT_BENCH_TEAM_PULL=0 ends the section after the write (no pulls, no `ten`).
 */
import { existsSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openCache, type WritePageInput } from '../src/core/cache'
import { silentLogger, systemClock } from '../src/core/platform/node'
import { SyncEngine } from '../src/core/sync'
import { createPool, PgSyncStore, pullTeamCache, type PullTimings } from '../src/core/team'
import { startService } from '../src/reference-service'
import { findPgBin, startPgCluster, type PgCluster } from '../test/support/pg-cluster'
import { signedInSession } from '../test/integration/team/helpers'
import { appPullRows } from './team-app-pull'
import { ALL, TYPE, callsIn, groups, PG_BENCH_TUNING, pullInChild, serverActivity, timingsLine } from './team-support'
import { limitFor, runEngine } from './sync'
import { median, percentile, type BenchFn, type BenchRow } from './types'

export const run: BenchFn = async (ctx) => {
  const bin = findPgBin()
  if (!bin) {
    ctx.log(
      "team: skipped: no PostgreSQL server binaries found (install Debian's postgresql package; CALLSIGHT_PG_BIN names another folder)"
    )
    return { name: 'team', rows: [] }
  }
  const rows: BenchRow[] = []
  const parts = new Set((process.env['CALLSIGHT_BENCH_TEAM_PARTS'] ?? 'worker,write,ten').split(',').map((p) => p.trim()))
  const sized = Number(process.env['CALLSIGHT_BENCH_TEAM_CALLS'] ?? 0)
  // The server tuned as docs/team.md "Sizing and tuning" says a team cache's server should be
  // (durability untouched: fsync, full-page writes and synchronous commit stay on).
  const cluster: PgCluster = await startPgCluster({ settings: PG_BENCH_TUNING })
  try {
    await cluster.sql('CREATE DATABASE bench')
    const url = cluster.urlFor({ database: 'bench' })

    // 1. Worker sync into PostgreSQL against the same sync into SQLite, back to back.
    if (parts.has('worker')) {
      const calls = ctx.quick ? 20_000 : 100_000
      const LIMIT = limitFor(ctx.quick)
      const ceiling = (LIMIT.requests / LIMIT.perSeconds) * 500
      const direct = await runEngine(calls, ctx.workDir, LIMIT)
      const team = await runEngine(calls, ctx.workDir, LIMIT, async () => {
        const store = await PgSyncStore.open({ url, schema: 'worker', migrate: true })
        return {
          store,
          count: async () => Number((await store.pool.query<{ n: string }>('SELECT count(*) AS n FROM worker.calls')).rows[0]!.n),
          close: () => store.close()
        }
      })
      const share = (r: typeof direct): number => (((r.rate ?? r.requests / r.seconds) * 500) / ceiling) * 100
      ctx.log(
        `worker sync: PostgreSQL ${share(team).toFixed(1)}% (${team.status429} × 429), SQLite ${share(direct).toFixed(1)}% (${direct.status429} × 429)`
      )
      rows.push(
        {
          metric: `worker sync of ${calls.toLocaleString('en')} calls into PostgreSQL: share of the ceiling`,
          value: share(team),
          unit: '%',
          baseline: share(direct),
          ratio: share(team) / share(direct),
          target: 97,
          targetKind: 'min',
          note: 'baseline: the same sync into SQLite, same run'
        },
        {
          metric: 'worker sync into PostgreSQL: 429 responses',
          value: team.status429,
          unit: 'count',
          baseline: direct.status429,
          target: 0,
          targetKind: 'max'
        }
      )
    }

    // 2. Bulk write throughput: the same groups into PostgreSQL and SQLite, interleaved.
    if (parts.has('write')) {
      const n = sized > 0 ? Math.round(sized / 100) * 100 : ctx.quick ? 100_000 : 1_000_000
      const compared = Math.min(n, ctx.quick ? 60_000 : 300_000)
      const store = await PgSyncStore.open({ url, schema: 'bench', migrate: true })
      // The old path: the same store with each statement awaited before the next is sent (as
      // node-postgres sent the statements queued on one client), on the compared calls.
      const oldStore = await PgSyncStore.open({ url, schema: 'bench_old', migrate: true, pipeline: false })
      const sqlite = openCache(join(ctx.workDir, 'direct.sqlite'))
      try {
        for (const s of [store, oldStore, sqlite]) {
          await s.ensureScope('all', ALL)
          await s.ensureScope('type', TYPE)
        }
        const pgRates: number[] = []
        const sqRates: number[] = []
        const oldRates: number[] = []
        let oldBlock = 0
        const before = await serverActivity(store.pool)
        let pgMs = 0
        let sqMs = 0
        let pgBlock = 0
        let sqBlock = 0
        let blockCalls = 0
        let done = 0
        const block = Math.max(2000, compared / 10)
        for (const g of groups(n, 42)) {
          let t = performance.now()
          await store.writePages(g)
          const pms = performance.now() - t
          pgMs += pms
          pgBlock += pms
          const c = callsIn(g)
          if (done < compared) {
            t = performance.now()
            await oldStore.writePages(g)
            oldBlock += performance.now() - t
            t = performance.now()
            sqlite.writePages(g)
            const sms = performance.now() - t
            sqMs += sms
            sqBlock += sms
          }
          done += c
          blockCalls += c
          if (blockCalls >= block) {
            pgRates.push(blockCalls / (pgBlock / 1000))
            if (sqBlock > 0) sqRates.push(blockCalls / (sqBlock / 1000))
            if (oldBlock > 0) oldRates.push(blockCalls / (oldBlock / 1000))
            blockCalls = 0
            oldBlock = 0
            pgBlock = 0
            sqBlock = 0
          }
          if (done % 200_000 === 0) ctx.log(`written ${done.toLocaleString('en')} calls to PostgreSQL`)
        }
        const pgRate = median(pgRates)
        const sqRate = median(sqRates)
        const oldRate = median(oldRates)
        const after = await serverActivity(store.pool)
        const early = median(pgRates.slice(0, oldRates.length))
        ctx.log(
          `bulk write: PostgreSQL ${Math.round(pgRate)} calls/s (whole run ${Math.round(n / (pgMs / 1000))}; blocks ${Math.round(Math.min(...pgRates))}–${Math.round(Math.max(...pgRates))}, p25 ${Math.round(percentile(pgRates, 25))}), SQLite ${Math.round(sqRate)} calls/s on the first ${compared.toLocaleString('en')}; old path (statements awaited one by one) ${Math.round(oldRate)} there (blocks ${Math.round(Math.min(...oldRates))}–${Math.round(Math.max(...oldRates))}) against ${Math.round(early)} for the new`
        )
        ctx.log(
          `during the write: ${after.checkpoints - before.checkpoints} checkpoints, ${after.backendWrites - before.backendWrites} buffers written by backends, ${after.autovacuums - before.autovacuums} autovacuum/analyze runs`
        )
        rows.push({
          metric: 'PostgreSQL write throughput, bulk sync (pages of 100 calls + 10 items, 20 per transaction), median of blocks',
          value: pgRate,
          unit: 'calls/s',
          baseline: sqRate,
          ratio: pgRate / sqRate,
          target: 20_000,
          targetKind: 'min',
          note: `baseline: the same groups into SQLite (direct path), interleaved, first ${compared.toLocaleString('en')} calls; PostgreSQL whole run ${Math.round(n / (pgMs / 1000))}/s over ${n.toLocaleString('en')}, blocks ${Math.round(Math.min(...pgRates))}–${Math.round(Math.max(...pgRates))}`
        })
        rows.push({
          metric: `PostgreSQL bulk write, first ${compared.toLocaleString('en')} calls: pipelined statements (median of blocks)`,
          value: early,
          unit: 'calls/s',
          baseline: oldRate,
          ratio: early / oldRate,
          note: 'baseline: the old path, each statement awaited before the next (schema bench_old), the same groups interleaved'
        })
        const direct = Math.round(compared / (sqMs / 1000))

        // Sizing of what was written.
        await store.pool.query('DROP SCHEMA bench_old CASCADE')
        await store.pool.query('VACUUM ANALYZE bench.calls, bench.scope_members')
        const sizes = await store.pool.query(
          `SELECT c.relname AS name, pg_total_relation_size(c.oid) AS bytes, s.n_live_tup AS rows FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
         LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE ns.nspname = 'bench' AND c.relkind = 'r'`
        )
        const cnt = async (t: string): Promise<number> =>
          Number((await store.pool.query<{ n: string }>(`SELECT count(*) AS n FROM bench.${t}`)).rows[0]!.n)
        const pgBytes = sizes.rows.reduce((s, r: { bytes: string }) => s + Number(r.bytes), 0)
        const memberRows = await cnt('scope_members')
        ctx.log(
          `PostgreSQL sizes: ${sizes.rows.map((r: { name: string; bytes: string }) => `${r.name} ${(Number(r.bytes) / 2 ** 20).toFixed(0)} MiB`).join(', ')}`
        )
        rows.push({
          metric: `team cache size per 1,000,000 calls with 10 items (${n.toLocaleString('en')} calls, ${memberRows.toLocaleString('en')} memberships)`,
          value: ((pgBytes / n) * 1e6) / 2 ** 20,
          unit: 'MiB',
          note: `rows per 1M calls: 1M calls, ${Math.round((memberRows / n) * 1e6).toLocaleString('en')} memberships; tables with indexes and TOAST`
        })

        // The write alone: the section ends here (the pulls and `ten` need the whole run).
        if (process.env['CALLSIGHT_BENCH_TEAM_PULL'] === '0') return { name: 'team', rows }

        // 3. Pull everything into an empty local cache, in its own process: first as a pull
        // of the app indexes batch by batch (the old path, `--index-each-batch`: baseline),
        // then with the index built beside the ingest (the CLI's default).
        const cli = join(process.cwd(), 'out', 'node', 'cli.mjs')
        const file = join(ctx.workDir, 'pulled.sqlite')
        let pull: { seconds: number; rss: number; calls: number; where: string; timings: PullTimings | null }
        let perBatch: { seconds: number; rss: number; calls: number; timings: PullTimings | null } | null = null
        if (existsSync(cli)) {
          if (process.env['CALLSIGHT_BENCH_TEAM_OLD_PULL'] !== '0') {
            const old = join(ctx.workDir, 'pulled-per-batch.sqlite')
            perBatch = await pullInChild(cli, url, old, ['--index-each-batch'])
            for (const f of [old, `${old}-wal`, `${old}-shm`]) rmSync(f, { force: true })
            ctx.log(
              `pull, index each batch (old path): ${n.toLocaleString('en')} calls in ${perBatch.seconds.toFixed(1)} s (${Math.round(n / perBatch.seconds)}/s), peak RSS ${(perBatch.rss / 2 ** 20).toFixed(0)} MiB; ${timingsLine(perBatch.timings, perBatch.seconds)}`
            )
          }
          pull = { ...(await pullInChild(cli, url, file)), where: 'CLI process' }
        } else {
          const pool = createPool({ url, schema: 'bench' })
          const cache = openCache(file)
          const t = performance.now()
          const r = await pullTeamCache({ pool, schema: 'bench', sourceLabel: url, cache })
          pull = {
            seconds: (performance.now() - t) / 1000,
            rss: process.memoryUsage().rss,
            calls: r.calls,
            where: 'in-process (no CLI bundle)',
            timings: r.timings
          }
          cache.close()
          await pool.end()
        }
        if (pull.calls !== n) throw new Error(`the pull applied ${pull.calls} of ${n} calls`)
        const rate = n / pull.seconds
        ctx.log(
          `pull: ${n.toLocaleString('en')} calls in ${pull.seconds.toFixed(1)} s (${Math.round(rate)}/s), peak RSS ${(pull.rss / 2 ** 20).toFixed(0)} MiB (${pull.where}); ${timingsLine(pull.timings, pull.seconds)}`
        )
        rows.push(
          {
            metric: `pull of ${n.toLocaleString('en')} calls with analysis into an empty cache, end to end`,
            value: rate,
            unit: 'calls/s',
            baseline: direct,
            ratio: rate / direct,
            target: 15_000,
            targetKind: 'min',
            note: `${pull.where}; baseline: direct SQLite ingest of the same pages, same run${perBatch ? `; the old path (index each batch) ${Math.round(n / perBatch.seconds)}/s, same run` : ''}`
          },
          ...(perBatch
            ? [
                {
                  metric: `pull of ${n.toLocaleString('en')} calls, old path (index each batch, --index-each-batch)`,
                  value: n / perBatch.seconds,
                  unit: 'calls/s',
                  note: `peak RSS ${(perBatch.rss / 2 ** 20).toFixed(0)} MiB; CALLSIGHT_BENCH_TEAM_OLD_PULL=0 skips it`
                } satisfies BenchRow
              ]
            : []),
          {
            // The issue's target is 300 MB (10^6 bytes): 286 MiB.
            metric: 'pull: peak resident memory',
            value: pull.rss / 1e6,
            unit: 'MB',
            target: 300,
            targetKind: 'max',
            note: `${pull.where}; ${(pull.rss / 2 ** 20).toFixed(0)} MiB`
          },
          { metric: 'pulled SQLite file per 1,000,000 calls', value: ((statSync(file).size / n) * 1e6) / 2 ** 20, unit: 'MiB' }
        )

        // 3b. The same pull as the app makes it, against V8's default heap growth (bench/team-app-pull.ts).
        if (process.env['CALLSIGHT_BENCH_TEAM_APP_PULL'] !== '0') rows.push(...(await appPullRows(ctx, url, n)))

        // 4. Incremental pulls of 1,000 changed calls.
        const times: number[] = []
        for (let round = 1; round <= (ctx.quick ? 3 : 7); round++) {
          // Modulo: every round stays within the calls written, whatever CALLSIGHT_BENCH_TEAM_CALLS says.
          const from = (round * 7919) % Math.max(1, n - 1000)
          const changed: WritePageInput[] = []
          for (const g of groups(n, 42, (r) => ({ ...r, summary: `${r.summary} (revised ${round})` }))) {
            for (const p of g) {
              if (p.scopeKey !== 'all') continue
              const sel = p.records.filter((r) => {
                const i = Number(r.callId.slice(1))
                return i >= from && i < from + 1000
              })
              if (sel.length) changed.push({ ...p, records: sel })
            }
            if (changed.reduce((s, p) => s + p.records.length, 0) >= 1000) break
          }
          await store.writePages(changed)
          const pool = createPool({ url, schema: 'bench', maxConnections: 1 })
          const cache = openCache(file)
          const t = performance.now()
          const r = await pullTeamCache({ pool, schema: 'bench', sourceLabel: url, cache })
          times.push(performance.now() - t)
          cache.close()
          await pool.end()
          if (r.calls !== 1000) throw new Error(`the incremental pull applied ${r.calls} calls, not 1000`)
        }
        rows.push({
          metric: 'incremental pull of 1,000 changed calls (p50)',
          value: percentile(times, 50),
          unit: 'ms',
          target: 1000,
          targetKind: 'max',
          note: `p95 ${percentile(times, 95).toFixed(0)} ms over ${times.length}; includes connecting`
        })
      } finally {
        sqlite.close()
        await oldStore.close()
        await store.close()
      }
    }

    // 5. Ten workstations pull what the worker synced: requests to the service.
    if (parts.has('ten')) {
      const svc = await startService({
        port: 0,
        calls: ctx.quick ? 5000 : 20_000,
        seed: 3,
        from: '2026-01-01T00:00:00Z',
        to: '2026-01-08T00:00:00Z',
        rateLimit: { requests: 1000, perSeconds: 1 },
        quiet: true
      })
      try {
        const { session } = await signedInSession(svc, { requests: 1000, perSeconds: 1 })
        const ten = await PgSyncStore.open({ url, schema: 'ten', migrate: true })
        const engine = new SyncEngine({
          source: session,
          cache: ten,
          clock: systemClock,
          logger: silentLogger,
          rateLimit: { requests: 1000, perSeconds: 1 }
        })
        const synced = await engine.run(
          { from: Date.parse('2026-01-01T00:00:00Z'), to: Date.parse('2026-01-08T00:00:01Z'), results: 'all', includeAnalysis: true },
          { mode: 'full' }
        )
        await ten.close()
        svc.admin.resetStats()
        const t = performance.now()
        const results = await Promise.all(
          Array.from({ length: 10 }, async (_, i) => {
            const pool = createPool({ url, schema: 'ten', maxConnections: 1 })
            const cache = openCache(join(ctx.workDir, `ws-${i}.sqlite`))
            try {
              return await pullTeamCache({ pool, schema: 'ten', sourceLabel: url, cache })
            } finally {
              cache.close()
              await pool.end()
            }
          })
        )
        const seconds = (performance.now() - t) / 1000
        if (results.some((r) => r.calls !== synced.stored)) throw new Error('a workstation did not pull every call')
        const requests = svc.admin.stats().requests
        rows.push({
          metric: `ten workstations pull ${synced.stored.toLocaleString('en')} calls: requests to the service`,
          value: requests,
          unit: 'count',
          baseline: synced.requests * 10,
          target: 0,
          targetKind: 'max',
          note: `baseline: ten direct syncs would send ${synced.requests} requests each; the ten pulls took ${seconds.toFixed(1)} s together`
        })
      } finally {
        await svc.stop()
      }
    }
  } finally {
    await cluster.stop()
  }
  return { name: 'team', rows }
}
