import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCache, type CallCache, type WritePageInput } from '../../../src/core/cache'
import { SEARCH_MMAP_BYTES } from '../../../src/core/cache/schema/cache-db'
import { createPool, OPTIMIZE_AFTER, PgSyncStore, pullTeamCache } from '../../../src/core/team'
import type { CallRecord } from '../../../src/shared/domain'
import { buildCli, removeBuild } from '../cli/build-cli'
import { FAST_TEST_SETTINGS, startPgCluster, type PgCluster } from '../../support/pg-cluster'
import { freshDatabase, pgContent, pullInto, sqliteContent, tempDir } from './helpers'
import { connectionOf } from '../../../src/core/cache/call-cache'

/**
 * A first bulk pull builds the full-text index beside the ingest (src/core/cache/ingest/deferred-index.ts):
 * the index it ends with equals the one of a pull that indexes batch by batch, and a pull
 * killed at any moment leaves a cache that refuses to be searched until an open finishes
 * the index from the stored rows.
 */
let cli = ''
let cluster: PgCluster
let url = ''
const tmp = tempDir('callsight-deferred-')
// Above the CLI's threshold for the deferred build.
const CALLS = OPTIMIZE_AFTER + 4000
const WORDS = ['fatura', 'itiraz', 'müşteri', 'İade', 'kargo', 'ödeme', 'şikâyet', 'internet', 'hat', 'kampanya', 'Işık', 'tarife']

function record(i: number): CallRecord {
  const w = (k: number): string => WORDS[(i * 7 + k * 13) % WORDS.length]!
  return {
    callId: `c${i}`,
    callAt: Date.UTC(2026, 0, 1) + i * 60_000,
    callDate: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    title: `${w(1)} ${w(2)} ${i % 97}`,
    summary: `${w(3)} hakkında ${w(4)} görüşmesi ${i}`,
    analysis: Array.from({ length: 10 }, (_, k) => ({
      key: `k${k}`,
      friendlyName: `Alan ${k}`,
      value: k === 0 ? String(i % 5) : `${w(k + 5)} ${k}`
    })),
    extra: { agent: `a${i % 17}` }
  }
}

beforeAll(async () => {
  ;[cli, cluster] = await Promise.all([buildCli(), startPgCluster({ settings: FAST_TEST_SETTINGS })])
  url = cluster.urlFor({ database: await freshDatabase(cluster) })
  const store = await PgSyncStore.open({ url, schema: 'acme', migrate: true })
  try {
    await store.ensureScope('all', { callTypes: [], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: true })
    await store.ensureScope('odd', { callTypes: ['Fatura'], direction: null, results: 'all', hasNewRequest: null, includeAnalysis: false })
    for (let i = 0; i < CALLS; i += 2000) {
      const pages: WritePageInput[] = []
      for (let p = i; p < Math.min(CALLS, i + 2000); p += 100) {
        const records = Array.from({ length: Math.min(100, CALLS - p) }, (_, k) => record(p + k))
        pages.push({ scopeKey: 'all', records, includeAnalysis: true, checkpoint: { next: p + 100 } })
        pages.push({
          scopeKey: 'odd',
          records: records.filter((r) => Number(r.callId.slice(1)) % 2 === 1),
          includeAnalysis: false,
          checkpoint: null
        })
      }
      await store.writePages(pages)
    }
  } finally {
    await store.close()
  }
}, 180_000)

afterAll(async () => {
  await cluster?.stop()
  removeBuild(cli)
  tmp.remove()
})

const pullInProcess = (file: string, deferIndexFrom?: number, onProgress?: (calls: number) => void): ReturnType<typeof pullInto> =>
  pullInto(url, file, { batchSize: 1500, deferIndexFrom, onProgress: (p) => onProgress?.(p.calls) })

/**
 * The index as per-term document and hit counts, the call ids some searches find, and the
 * B-tree indexes of the tables a pull fills (a first pull builds some of them at its end).
 */
function indexOf(cache: CallCache): { vocab: unknown[]; found: Record<string, string[]>; btrees: unknown[] } {
  const btrees = connectionOf(cache)
    .prepare(
      "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('calls', 'analysis', 'scope_members') ORDER BY name"
    )
    .raw()
    .all()
  const vocab = connectionOf(cache).prepare('SELECT term, doc, cnt FROM calls_fts_vocab ORDER BY term').raw().all()
  const found: Record<string, string[]> = {}
  for (const q of ['fatura', 'musteri', 'kar*', 'i*', 'itiraz AND kargo', '"hakkinda kargo"']) {
    found[q] = (
      connectionOf(cache)
        .prepare('SELECT c.call_id FROM calls_fts f JOIN calls c ON c.id = f.rowid WHERE calls_fts MATCH ?')
        .pluck()
        .all(q) as string[]
    ).sort()
  }
  return { vocab, found, btrees }
}

/** The index of a pull that indexes batch by batch (the path the app takes), pulled once. */
let reference: ReturnType<typeof indexOf> | null = null
async function referenceIndex(): Promise<ReturnType<typeof indexOf>> {
  if (reference === null) {
    const plain = join(tmp.dir, 'plain.sqlite')
    expect((await pullInProcess(plain)).phase).toBe('done')
    const cache = openCache(plain)
    try {
      expect(sqliteContent(cache)).toEqual(await pgContent(url, 'acme'))
      reference = indexOf(cache)
    } finally {
      cache.close()
    }
  }
  return reference
}

describe('a first pull builds the search index beside the ingest', () => {
  it('ends with the same rows and the same index as a pull that indexes batch by batch', async () => {
    const want = await referenceIndex()
    const deferred = join(tmp.dir, 'deferred.sqlite')
    let refused = ''
    const started = performance.now()
    const r = await pullInProcess(deferred, 1, (calls) => {
      if (calls === 0 || refused !== '') return
      // While the build runs, no other open may search the half-built index.
      try {
        openCache(deferred).close()
        refused = 'opened'
      } catch (e) {
        refused = (e as Error).message
      }
    })
    const wall = (performance.now() - started) / 1000
    expect(r.error).toBeUndefined()
    expect(r.phase).toBe('done')
    // The pulling thread's time by part: every part measured, together within the pull's wall time.
    const { read, write, indexWait, end } = r.timings
    for (const part of [read, write, end]) expect(part).toBeGreaterThan(0)
    expect(indexWait).toBeGreaterThanOrEqual(0)
    expect(read + write + indexWait + end).toBeLessThanOrEqual(wall)
    expect(refused).toMatch(/still building the search index/)
    expect(existsSync(`${deferred}.index-build`)).toBe(false)
    const cache = openCache(deferred)
    try {
      expect(sqliteContent(cache)).toEqual(await pgContent(url, 'acme'))
      expect(connectionOf(cache).prepare('SELECT count(*) FROM index_build').pluck().get()).toBe(0)
      expect(connectionOf(cache).pragma('integrity_check', { simple: true })).toBe('ok')
      // FTS5's own check of the index against itself (throws when it is corrupt).
      connectionOf(cache).prepare("INSERT INTO calls_fts (calls_fts, rank) VALUES ('integrity-check', 0)").run()
      expect(indexOf(cache)).toEqual(want)
    } finally {
      cache.close()
    }
    expect(want.found['fatura']!.length).toBeGreaterThan(1000)
    expect(want.found['"hakkinda kargo"']!.length).toBeGreaterThan(100)
    expect(want.found['musteri']!.length).toBeGreaterThan(100)
  }, 180_000)

  it('a CLI pull killed at any moment during the build resumes to the exact set and a complete index', async () => {
    const want = await pgContent(url, 'acme')
    const index = await referenceIndex()
    // Killed once its progress (--json, a line at most every 100 ms) reports `killAtBatch`
    // batches applied: a point in the work, not in time, whatever the machine's speed.
    const runCli = (file: string, killAtBatch?: number): Promise<{ killed: boolean; batches: number }> =>
      new Promise((resolve, reject) => {
        // The password in PGPASSWORD: the command line takes none.
        const { url: bare, password } = cluster.credentialsFor({ database: new URL(url).pathname.slice(1) })
        const child = spawn(
          process.execPath,
          [cli, 'pull', '--from', bare, '--schema', 'acme', '--db', file, '--batch', '1000', '--json'],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
            env: { ...process.env, PGPASSWORD: password! }
          }
        )
        let err = ''
        let out = ''
        let batches = 0
        child.stderr.on('data', (d: Buffer) => (err += d.toString()))
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString()
          const lines = out.split('\n')
          out = lines.pop()!
          for (const line of lines) batches = Math.max(batches, (JSON.parse(line) as { batches: number }).batches)
          if (killAtBatch !== undefined && batches >= killAtBatch) child.kill('SIGKILL')
        })
        child.on('error', reject)
        child.on('close', (code, signal) => {
          if (signal !== 'SIGKILL' && code !== 0) reject(new Error(`pull exited ${code}: ${err}`))
          else resolve({ killed: signal === 'SIGKILL', batches })
        })
      })
    const full = await runCli(join(tmp.dir, 'whole.sqlite'))
    expect(full.batches).toBeGreaterThan(20)
    let halfBuilt = 0
    // Early in the ingest, late in it, and after its last batch (most likely while the index
    // is merged and copied in; a pull that ends first is not killed, and resumes to nothing).
    for (const share of [0.25, 0.6, 0.9, 1]) {
      const file = join(tmp.dir, `killed-${share}.sqlite`)
      const r = await runCli(file, Math.round(full.batches * share))
      if (share === 0.25) expect(r.killed).toBe(true)
      if (r.killed) {
        let message = ''
        try {
          openCache(file, { readonly: true }).close()
        } catch (e) {
          message = (e as Error).message
        }
        if (message !== '') {
          expect(message).toMatch(/left half built/)
          halfBuilt++
        }
      }
      // The next pull's open finishes the index from the stored rows, then pulls the rest.
      expect((await runCli(file)).killed).toBe(false)
      expect(existsSync(`${file}.index-build`)).toBe(false)
      const cache = openCache(file)
      try {
        expect(sqliteContent(cache)).toEqual(want)
        expect(connectionOf(cache).prepare('SELECT count(*) FROM index_build').pluck().get()).toBe(0)
        expect(indexOf(cache)).toEqual(index)
      } finally {
        cache.close()
      }
    }
    expect(halfBuilt).toBeGreaterThan(0)
  }, 240_000)
})

describe("the app's pull (index each batch)", () => {
  it('reads without the memory map while it pulls many calls, and has it back when cancelled or done', async () => {
    const file = join(tmp.dir, 'app-map.sqlite')
    const pool = createPool({ url, schema: 'acme', maxConnections: 1 })
    const cache = openCache(file)
    const mmap = (): unknown => connectionOf(cache).pragma('mmap_size', { simple: true })
    try {
      const seen = new Set<unknown>()
      const ac = new AbortController()
      const pull = (signal?: AbortSignal) =>
        pullTeamCache({
          pool,
          schema: 'acme',
          sourceLabel: url,
          cache,
          batchSize: 1500,
          ...(signal ? { signal } : {}),
          onProgress: (p) => {
            if (p.phase !== 'pulling' || p.batches === 0) return
            seen.add(mmap())
            if (p.batches === 3) ac.abort()
          }
        })
      const cancelled = await pull(ac.signal)
      expect(cancelled.phase).toBe('cancelled')
      expect(mmap()).toBe(SEARCH_MMAP_BYTES)
      // What is left is still a bulk pull (≥ OPTIMIZE_AFTER calls): the map is off again.
      const done = await pull()
      expect(done.phase).toBe('done')
      expect(cancelled.calls + done.calls).toBe(CALLS)
      expect([...seen]).toEqual([0])
      expect(mmap()).toBe(SEARCH_MMAP_BYTES)
    } finally {
      cache.close()
      await pool.end()
    }
  }, 60_000)
})
