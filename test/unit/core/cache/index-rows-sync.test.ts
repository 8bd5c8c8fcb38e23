import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openCache, type WritePageInput } from '../../../../src/core/cache'
import { clearIndex, reindexAll } from '../../../../src/core/cache/ingest/reindex'
import { SHORT_INDEX_TABLE } from '../../../../src/core/cache/ingest/short-prefixes'
import { createSearch } from '../../../../src/core/search'
import { SearchQuery, type CallRecord, type SearchQueryInput } from '../../../../src/shared/domain'

/**
 * The sync's path writes each transaction's full-text rows itself (IndexRows): new calls,
 * calls changed by a later transaction (their old rows go), a page without analysis that
 * changes a call stored with it (its stored analysis stays indexed), and the same call twice
 * in one transaction. The index it leaves must be exactly the one rebuilt from the stored
 * rows (reindexAll, a path that shares no code with IndexRows' writing): every token of
 * every call, in its column and place, in calls_fts and in the short-prefix index; and the
 * searches answer the same on both files.
 */
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'callsight-index-rows-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

const ALL = { callTypes: [], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: true }
const TYPE = { callTypes: ['Fatura'], direction: null, results: 'answered' as const, hasNewRequest: null, includeAnalysis: false }
const WORDS = ['kalem', 'kargo', 'ışık', 'İPTAL', 'iade', 'müşteri', 'fatura', 'çağrı', 'öneri', 'şikâyet', 'ka', 'i', 'modem', 'Ödeme']

function rec(i: number, version = 0): CallRecord {
  const w = (k: number): string => WORDS[((Math.imul(i + 1, 2654435761) ^ Math.imul(k + 1 + version * 7, 40503)) >>> 9) % WORDS.length]!
  return {
    callId: `c${i}`,
    callAt: Date.UTC(2026, 0, 1) + i * 60_000,
    callDate: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
    title: version === 0 ? `${w(0)} ${i % 50}` : `değişti ${w(5)}`,
    summary: `${w(1)} hakkında ${w(2)} görüşmesi ${w(3)}`,
    analysis: Array.from({ length: 3 }, (_, k) => ({ key: `k${k}`, friendlyName: `Alan ${k}`, value: `${w(k + 4)} ${i % 13}` })),
    extra: {}
  }
}

/** Transaction t: three pages of 100 new calls, one of the second scope, and changes to earlier calls. */
function transaction(t: number): WritePageInput[] {
  const out: WritePageInput[] = []
  for (let p = t * 3; p < t * 3 + 3; p++) {
    const records = Array.from({ length: 100 }, (_, k) => rec(p * 100 + k))
    out.push({ scopeKey: 'all', records, includeAnalysis: true, checkpoint: { t } })
    if (p % 2 === 0) out.push({ scopeKey: 'type', records: records.slice(0, 20), includeAnalysis: false, checkpoint: { t } })
  }
  if (t > 0) {
    // Earlier calls changed, with their analysis, and without it (their stored analysis stays).
    const changed = Array.from({ length: 15 }, (_, k) => rec((t - 1) * 300 + k * 11, t))
    out.push({ scopeKey: 'all', records: changed.slice(0, 8), includeAnalysis: true, checkpoint: { t } })
    out.push({ scopeKey: 'type', records: changed.slice(8), includeAnalysis: false, checkpoint: { t } })
    // A call of this very transaction written again, changed: one row for it, its last.
    out.push({ scopeKey: 'all', records: [rec(t * 300 + 5, t)], includeAnalysis: true, checkpoint: { t } })
  }
  return out
}

/** Every token of an FTS5 table: term, call, column and place (fts5vocab 'instance'). */
function tokens(db: Database.Database, table: string): unknown[] {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.tokens_${table} USING fts5vocab(main, '${table}', 'instance')`)
  return db.prepare(`SELECT * FROM temp.tokens_${table} ORDER BY term, doc, col, offset`).raw(true).all()
}

const QUERIES: SearchQueryInput[] = [
  { text: 'ka' },
  { text: 'i' },
  { text: 'ı' },
  { text: 'kar' },
  { text: 'iptal' },
  { text: 'değişti' },
  { text: '"hakkında kargo"' },
  { text: 'müşteri ka' },
  { text: 'ödeme', sort: 'relevance' }
]

function answers(file: string): unknown[] {
  const cache = openCache(file, { checkpointer: false })
  try {
    const search = createSearch(cache)
    return QUERIES.map((input) => {
      const q = SearchQuery.parse(input)
      return [search.count(q), search.page(q, 0, 1000).rows.map((c) => c.callId)]
    })
  } finally {
    cache.close()
  }
}

describe("the sync's index rows", () => {
  it('leave exactly the index rebuilt from the stored rows, token for token, and the same answers', () => {
    const written = join(dir, 'written.db')
    const cache = openCache(written, { checkpointer: false })
    cache.ensureScope('all', ALL)
    cache.ensureScope('type', TYPE)
    for (let t = 0; t < 6; t++) cache.writePages(transaction(t))
    cache.close()

    const rebuilt = join(dir, 'rebuilt.db')
    copyFileSync(written, rebuilt)
    const a = new Database(written, { readonly: true })
    const b = new Database(rebuilt)
    try {
      b.transaction(() => {
        clearIndex(b)
        reindexAll(b)
      })()
      expect(a.prepare('SELECT count(*) FROM calls').pluck().get()).toBe(1800)
      for (const table of ['calls_fts', SHORT_INDEX_TABLE]) {
        const got = tokens(a, table)
        expect(got.length).toBeGreaterThan(1800)
        expect(got).toEqual(tokens(b, table))
      }
    } finally {
      a.close()
      b.close()
    }
    expect(answers(written)).toEqual(answers(rebuilt))
  })
})
